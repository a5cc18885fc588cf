package io.files2iceberg.core.profile;

import com.fasterxml.jackson.databind.JsonNode;
import io.files2iceberg.core.match.Glob;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What cannot hold between the profiles of one deployment: two profiles for one object, one table,
 * or one catalog name with different settings. Each error is
 * reported on the later file and names the earlier one.
 */
final class ProfileConflicts {

  private ProfileConflicts() {}

  static List<ProfileError> find(List<TableProfile> profiles) {
    List<ProfileError> errors = new ArrayList<>();
    // Settings are compared in their rendered form: every default filled in, one node per key.
    List<JsonNode> rendered = profiles.stream().<JsonNode>map(ProfileJson::profile).toList();
    // Each glob is compiled once, for all the pairs it is in.
    List<Glob> globs = profiles.stream().map(p -> Glob.parse(p.extract().path())).toList();
    Map<String, Integer> firstByCatalog = new LinkedHashMap<>();
    for (TableProfile profile : profiles) {
      profile.load().afterIngest().moveTo().ifPresent(moveTo -> watchedArchive(profile, moveTo, profiles, globs, errors));
    }
    for (int i = 0; i < profiles.size(); i++) {
      TableProfile later = profiles.get(i);
      for (int j = 0; j < i; j++) {
        pairwise(profiles.get(j), globs.get(j), later, globs.get(i), errors);
      }
      String catalog = later.load().table().catalog();
      Integer sameCatalog = firstByCatalog.putIfAbsent(catalog, i);
      if (sameCatalog != null) {
        String why =
            "both use catalog %s, and a catalog name has one set of settings".formatted(ValueType.quote(catalog));
        differences(profiles, rendered, sameCatalog, i, "catalog", why, errors);
      }
    }
    return errors;
  }

  /**
   * Landing cleanup's {@code move-to} must not be watched: a copy there is a new object that the
   * listener would record and load again. Watched means in the folder tree of a profile's {@code
   * extract.path} (its literal folder prefix), or able to match it below the folder.
   */
  private static void watchedArchive(TableProfile profile, String moveTo, List<TableProfile> profiles,
      List<Glob> globs, List<ProfileError> errors) {
    Glob archive;
    try {
      // The folder as a glob of one literal name in it: its fixed prefix is the folder's name.
      archive = Glob.parse(Glob.escape(moveTo) + "x");
    } catch (IllegalArgumentException e) {
      return; // its form is reported on the key itself
    }
    String prefix = archive.fixedPrefix().substring(0, archive.fixedPrefix().length() - 1);
    for (int i = 0; i < profiles.size(); i++) {
      Glob watched = globs.get(i);
      if (!watched.scheme().equals(archive.scheme()) || !watched.bucket().equals(archive.bucket())) {
        continue;
      }
      String watchedFolder = watched.fixedPrefix().substring(0, watched.fixedPrefix().lastIndexOf('/') + 1);
      if (prefix.startsWith(watchedFolder) || watched.canMatchBelow(prefix)) {
        TableProfile other = profiles.get(i);
        errors.add(new ProfileError(profile.source(), LoadKeys.LOAD_AFTER_INGEST_MOVE_TO.path(),
            ("%s is under %s, which extract.path %s%s watches: the listener would record every moved object as a"
                + " new file; move them outside every watched folder").formatted(ValueType.quote(moveTo),
                ValueType.quote(watched.scheme().equals("gs") ? "gs://" + watched.bucket() + "/" + watchedFolder
                    : "file:///" + watchedFolder), ValueType.quote(other.extract().path()),
                other == profile ? "" : " of " + fileName(other.source()))));
        return;
      }
    }
  }

  private static void pairwise(
      TableProfile earlier, Glob earlierGlob, TableProfile later, Glob laterGlob, List<ProfileError> errors) {
    sharedMarkers(earlier, earlierGlob, later, laterGlob, errors);
    String other = fileName(earlier.source());
    if (earlier.name().equals(later.name())) {
      errors.add(new ProfileError(later.source(), "",
          "has the same profile name %s as %s".formatted(ValueType.quote(later.name()), other)));
    }
    if (earlier.table().equals(later.table())) {
      errors.add(new ProfileError(later.source(), LoadKeys.LOAD_TABLE.path(),
          "table %s is also loaded by %s; one profile per table".formatted(ValueType.quote(later.table()), other)));
    }
    if (earlierGlob.overlaps(laterGlob)) {
      errors.add(new ProfileError(later.source(), ExtractKeys.EXTRACT_PATH.path(),
          "%s can claim the same objects as %s in %s; each object must belong to one profile".formatted(
              ValueType.quote(later.extract().path()), ValueType.quote(earlier.extract().path()), other)));
    }
  }

  /**
   * A success marker names no table: two profiles whose data can share a folder, both waiting for
   * markers of one name, would each take the other's marker for their own.
   */
  private static void sharedMarkers(
      TableProfile earlier, Glob earlierGlob, TableProfile later, Glob laterGlob, List<ProfileError> errors) {
    var before = earlier.extract().batchFile();
    var after = later.extract().batchFile();
    if (!before.successFileFilter() || !after.successFileFilter()
        || !before.successFileName().equals(after.successFileName())) {
      return;
    }
    if (!earlierGlob.overlaps(laterGlob) && earlierGlob.sharesFolders(laterGlob)) {
      errors.add(new ProfileError(later.source(), ExtractKeys.BATCH_FILE_SUCCESS_FILE_NAME.path(),
          ("a success marker %s in a folder of %s would also complete a partition of %s in %s;"
              + " give one of them another success-file-name").formatted(ValueType.quote(after.successFileName()),
              ValueType.quote(later.extract().path()), ValueType.quote(earlier.extract().path()),
              fileName(earlier.source()))));
    }
  }

  /** One error per key of the section whose resolved value differs between two profiles. */
  private static void differences(
      List<TableProfile> profiles,
      List<JsonNode> rendered,
      int earlier,
      int later,
      String section,
      String why,
      List<ProfileError> errors) {
    JsonNode expected = rendered.get(earlier).get(section);
    JsonNode actual = rendered.get(later).get(section);
    for (Iterator<String> fields = expected.fieldNames(); fields.hasNext(); ) {
      String field = fields.next();
      if (!Objects.equals(expected.get(field), actual.get(field))) {
        errors.add(new ProfileError(profiles.get(later).source(), section + "." + field, "is %s here but %s in %s; %s"
            .formatted(actual.get(field), expected.get(field), fileName(profiles.get(earlier).source()), why)));
      }
    }
  }

  private static String fileName(Path file) {
    return file.getFileName().toString();
  }
}
