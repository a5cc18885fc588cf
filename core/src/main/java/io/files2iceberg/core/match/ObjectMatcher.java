package io.files2iceberg.core.match;

import io.files2iceberg.core.match.ObjectMatch.DataFile;
import io.files2iceberg.core.match.ObjectMatch.Ignored;
import io.files2iceberg.core.match.ObjectMatch.Rejected;
import io.files2iceberg.core.match.ObjectMatch.SuccessMarker;
import io.files2iceberg.core.profile.BatchFile;
import io.files2iceberg.core.profile.BatchFile.PartitionType;
import io.files2iceberg.core.profile.TableProfile;
import java.time.DateTimeException;
import java.time.LocalDate;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import java.util.stream.Collectors;

/**
 * Decides what an object is: a data file or success marker of one profile's partition, an object
 * to ignore, or a rejected data file. Built once from the profiles; thread-safe.
 *
 * <p>Checks run in this order, and the first that applies decides:
 *
 * <ol>
 *   <li>a name ending with {@code /} is a folder placeholder;
 *   <li>names that are never data, whatever the profile: a {@code _temporary/} segment anywhere,
 *       a {@code .crc} suffix, file names starting with {@code _committed_} or {@code _started_};
 *   <li>hidden files (starting with {@code _} or {@code .}), unless the file name is some profile's
 *       success file name;
 *   <li>a success marker: the file name is the profile's {@code success-file-name} and its folder
 *       {@link Glob#matchesFolder matches} the profile's glob, whatever its size. It is ignored when
 *       the profile's {@code success-file-filter} is off;
 *   <li>a data file: in the profile's bucket and matching its glob; ignored when it has zero bytes;
 *   <li>a file in a subfolder, at any depth, of a partition folder (the nearest folder above the
 *       object's own in which a file of the same name would match the glob): with {@code
 *       extract.recursive-file-lookup} a data file of that folder's partition, placed as if it lay
 *       directly in it (unless a subfolder's name starts with {@code _} or {@code .}); without it,
 *       ignored;
 *   <li>its partition (see below); otherwise the object matches no table profile.
 * </ol>
 *
 * Profiles never overlap (the profile registry rejects that), so the first profile that claims an
 * object is the only one. Neither do two profiles waiting for markers of one name share a folder
 * (the registry rejects that too), so a success marker also belongs to one profile.
 *
 * <p>The partition token: with {@code extract.batch-file.pattern}, group 1 of the pattern matched
 * (whole-string) against the object URI, or failing that against the object name; a success marker
 * may also match through its folder's URI or name (with the trailing {@code /}). A group that did
 * not take part in the match is the empty token; a file in a subfolder of its partition folder may
 * also match as if it lay directly in that folder. A data file (or marker) the pattern does not
 * match is {@link Rejected}, whatever {@code strict-pattern} says; {@link Rejected#stopsTheTable()}
 * tells what strict-pattern makes of it. Without a pattern the token is the object's folder
 * relative to the folder of the glob's {@link Glob#fixedPrefix()}, empty directly in it. Date
 * partitions parse the token with {@code date-format} (strictly: no Feb 30) and use its ISO form;
 * a token that does not parse is always {@link Rejected}.
 */
public final class ObjectMatcher {

  static final String NO_PROFILE = "matches no table profile";
  static final String FOLDER_PLACEHOLDER = "folder placeholder (name ends with /)";
  static final String TEMPORARY = "Spark/Hadoop temporary file (_temporary/)";
  static final String CHECKSUM = "checksum file (.crc)";
  static final String COMMITTED = "commit marker (_committed_*)";
  static final String STARTED = "commit marker (_started_*)";
  static final String HIDDEN = "hidden file (name starts with _ or .)";
  static final String ZERO_BYTES = "zero-byte file that is not a success marker";
  static final String MARKER_FILTER_OFF = "success marker but success-file-filter is off";
  static final String SUBFOLDER =
      "in a subfolder of a partition folder (extract.recursive-file-lookup off)";
  static final String HIDDEN_FOLDER =
      "in a hidden subfolder of a partition folder (a folder name starts with _ or .)";

  private final List<Route> routes;
  private final Set<String> successFileNames;

  /**
   * @throws IllegalArgumentException naming the profile and the key when a profile's {@code
   *     extract.path}, {@code pattern} or {@code date-format} cannot be compiled
   */
  public ObjectMatcher(List<TableProfile> profiles) {
    List<Route> compiled = new ArrayList<>();
    for (TableProfile profile : List.copyOf(profiles)) {
      compiled.add(Route.compile(profile));
    }
    this.routes = List.copyOf(compiled);
    this.successFileNames =
        routes.stream()
            .map(route -> route.batchFile().successFileName())
            .collect(Collectors.toUnmodifiableSet());
  }

  /** Matches a GCS object. */
  public ObjectMatch match(String bucket, String name, long generation, long size) {
    return match(ObjectLocation.gs(bucket, name), generation, size);
  }

  /** Matches an object of either scheme. */
  public ObjectMatch match(ObjectLocation object, long generation, long size) {
    Objects.requireNonNull(object, "object");
    Optional<String> neverData = neverDataReason(object);
    if (neverData.isPresent()) {
      return new Ignored(object, neverData.get(), owner(object));
    }
    String fileName = object.fileName();
    if ((fileName.startsWith("_") || fileName.startsWith("."))
        && !successFileNames.contains(fileName)) {
      return new Ignored(object, HIDDEN, owner(object));
    }
    for (Route route : routes) {
      if (route.holdsMarker(object)) {
        if (!route.batchFile().successFileFilter()) {
          return new Ignored(object, MARKER_FILTER_OFF, Optional.of(route.profile()));
        }
        return route.place(object, object, true, generation);
      }
    }
    for (Route route : routes) {
      if (route.glob().matches(object)) {
        if (size == 0) {
          return new Ignored(object, ZERO_BYTES, Optional.of(route.profile()));
        }
        return route.place(object, object, false, generation);
      }
    }
    for (Route route : routes) {
      Optional<String> partitionFolder = route.partitionFolderAbove(object);
      if (partitionFolder.isPresent()) {
        return route.placeNested(object, partitionFolder.get(), generation, size);
      }
    }
    return new Ignored(object, NO_PROFILE, Optional.empty());
  }

  private static Optional<String> neverDataReason(ObjectLocation object) {
    String name = object.name();
    String fileName = object.fileName();
    if (name.endsWith("/")) {
      return Optional.of(FOLDER_PLACEHOLDER);
    }
    if (name.startsWith("_temporary/") || name.contains("/_temporary/")) {
      return Optional.of(TEMPORARY);
    }
    if (fileName.endsWith(".crc")) {
      return Optional.of(CHECKSUM);
    }
    if (fileName.startsWith("_committed_")) {
      return Optional.of(COMMITTED);
    }
    if (fileName.startsWith("_started_")) {
      return Optional.of(STARTED);
    }
    return Optional.empty();
  }

  /** The profile whose glob or folders hold an ignored object, for reporting. */
  private Optional<TableProfile> owner(ObjectLocation object) {
    return routes.stream()
        .filter(
            route ->
                route.glob().matches(object)
                    || (route.glob().isInBucket(object)
                        && route.glob().matchesFolder(object.folder()))
                    || route.partitionFolderAbove(object).isPresent())
        .map(Route::profile)
        .findFirst();
  }

  /** One profile, compiled. */
  private record Route(
      TableProfile profile,
      Glob glob,
      Optional<Pattern> pattern,
      Optional<DateTimeFormatter> dateFormat) {

    static Route compile(TableProfile profile) {
      String where = "profile \"" + profile.name() + "\": ";
      BatchFile batchFile = profile.extract().batchFile();
      Glob glob;
      try {
        glob = Glob.parse(profile.extract().path());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(where + "extract.path: " + e.getMessage(), e);
      }
      Optional<Pattern> pattern = Optional.empty();
      if (batchFile.pattern().isPresent()) {
        String regex = batchFile.pattern().get();
        try {
          pattern = Optional.of(Pattern.compile(regex));
        } catch (PatternSyntaxException e) {
          throw new IllegalArgumentException(
              where + "extract.batch-file.pattern \"" + regex + "\" is not a valid regular"
                  + " expression: " + e.getDescription(),
              e);
        }
        int groups = pattern.get().matcher("").groupCount();
        if (groups != 1) {
          throw new IllegalArgumentException(
              where + "extract.batch-file.pattern \"" + regex
                  + "\" must have exactly one capture group, has " + groups);
        }
      }
      Optional<DateTimeFormatter> dateFormat = Optional.empty();
      if (batchFile.partitionType() == PartitionType.DATE) {
        String format =
            batchFile
                .dateFormat()
                .orElseThrow(
                    () ->
                        new IllegalArgumentException(
                            where + "extract.batch-file.date-format is required when"
                                + " partition-type is date"));
        try {
          dateFormat = Optional.of(BatchFile.strictDateFormat(format));
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException(
              where + "extract.batch-file.date-format \"" + format
                  + "\" is not a valid DateTimeFormatter pattern: " + e.getMessage(),
              e);
        }
      }
      return new Route(profile, glob, pattern, dateFormat);
    }

    BatchFile batchFile() {
      return profile.extract().batchFile();
    }

    boolean holdsMarker(ObjectLocation object) {
      return object.fileName().equals(batchFile().successFileName())
          && glob.isInBucket(object)
          && glob.matchesFolder(object.folder());
    }

    /**
     * The nearest folder above the object's own folder in which an object of the same file name
     * would match the glob: the partition folder a file in one of its subfolders belongs to.
     */
    Optional<String> partitionFolderAbove(ObjectLocation object) {
      if (!glob.isInBucket(object)) {
        return Optional.empty();
      }
      String folder = object.folder();
      while (!folder.isEmpty()) {
        int slash = folder.lastIndexOf('/');
        folder = slash < 0 ? "" : folder.substring(0, slash);
        if (glob.matches(folder.isEmpty() ? object.fileName() : folder + "/" + object.fileName())) {
          return Optional.of(folder);
        }
      }
      return Optional.empty();
    }

    /**
     * A file in a subfolder of {@code partitionFolder}: with {@code recursive-file-lookup} it is a
     * data file of that folder's partition, placed as if it lay directly in the folder; hidden
     * names (a subfolder or the file itself starting with {@code _} or {@code .}) are not data, as
     * Spark's recursive lookup skips them.
     */
    ObjectMatch placeNested(ObjectLocation object, String partitionFolder, long generation, long size) {
      if (!profile.extract().recursiveFileLookup()) {
        return new Ignored(object, SUBFOLDER, Optional.of(profile));
      }
      String fileName = object.fileName();
      if (fileName.startsWith("_") || fileName.startsWith(".")) {
        return new Ignored(object, HIDDEN, Optional.of(profile));
      }
      String below = partitionFolder.isEmpty()
          ? object.folder()
          : object.folder().substring(partitionFolder.length() + 1);
      for (String segment : below.split("/")) {
        if (segment.startsWith("_") || segment.startsWith(".")) {
          return new Ignored(object, HIDDEN_FOLDER, Optional.of(profile));
        }
      }
      if (size == 0) {
        return new Ignored(object, ZERO_BYTES, Optional.of(profile));
      }
      ObjectLocation placed =
          new ObjectLocation(
              object.scheme(),
              object.bucket(),
              partitionFolder.isEmpty() ? fileName : partitionFolder + "/" + fileName);
      return place(object, placed, false, generation);
    }

    /**
     * The object's partition, as a data file or a marker; or why it has none. {@code placed} is
     * where the partition is read from: the object itself, or for a file in a subfolder of a
     * partition folder, the same file name directly in that folder.
     */
    ObjectMatch place(ObjectLocation object, ObjectLocation placed, boolean marker, long generation) {
      String rawToken;
      if (pattern.isPresent()) {
        Optional<String> captured = capture(pattern.get(), object, marker);
        if (captured.isEmpty() && !placed.equals(object)) {
          captured = capture(pattern.get(), placed, false);
        }
        if (captured.isEmpty()) {
          return new Rejected(
              profile,
              object,
              (marker ? "success marker " : "")
                  + object.uri()
                  + " does not match extract.batch-file.pattern \""
                  + pattern.get().pattern()
                  + "\" (strict-pattern "
                  + (batchFile().strictPattern() ? "on" : "off")
                  + ")",
              Rejected.Kind.PATTERN_MISMATCH);
        }
        rawToken = captured.get();
      } else {
        rawToken = folderToken(placed);
      }
      String token = rawToken;
      Optional<LocalDate> date = Optional.empty();
      if (dateFormat.isPresent()) {
        try {
          LocalDate parsed = dateFormat.get().parse(rawToken, LocalDate::from);
          date = Optional.of(parsed);
          token = parsed.toString();
        } catch (DateTimeException e) {
          return new Rejected(
              profile,
              object,
              "partition token \"" + rawToken + "\" of " + object.uri()
                  + " does not parse with extract.batch-file.date-format \""
                  + batchFile().dateFormat().orElseThrow() + "\"",
              Rejected.Kind.UNPARSEABLE_DATE);
        }
      }
      PartitionRef partition = new PartitionRef(profile.table(), token, date, placed.folderUri());
      return marker
          ? new SuccessMarker(profile, partition, object)
          : new DataFile(profile, partition, object, generation);
    }

    /**
     * Group 1 of the pattern over the URI, else the name; a marker, which data-file patterns
     * often do not describe, may match through its folder instead.
     */
    private static Optional<String> capture(
        Pattern pattern, ObjectLocation object, boolean marker) {
      List<String> candidates = new ArrayList<>(List.of(object.uri(), object.name()));
      if (marker) {
        candidates.add(object.folderUri());
        if (!object.folder().isEmpty()) {
          candidates.add(object.folder() + "/");
        }
      }
      for (String candidate : candidates) {
        Matcher matcher = pattern.matcher(candidate);
        if (matcher.matches()) {
          return Optional.of(Objects.requireNonNullElse(matcher.group(1), ""));
        }
      }
      return Optional.empty();
    }

    /** The object's folder relative to the folder of the glob's fixed prefix. */
    private String folderToken(ObjectLocation object) {
      String folder = object.folder().isEmpty() ? "" : object.folder() + "/";
      String base = glob.fixedPrefixFolder();
      String relative = folder.startsWith(base) ? folder.substring(base.length()) : folder;
      return relative.endsWith("/") ? relative.substring(0, relative.length() - 1) : relative;
    }
  }
}
