package io.files2iceberg.batcher.local;

import io.files2iceberg.core.match.Glob;
import io.files2iceberg.core.match.ObjectLocation;
import io.files2iceberg.core.profile.ProfileError;
import io.files2iceberg.core.profile.TableProfile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@code local} and {@code demo} can load: they post only the files inside their landing
 * folder, as {@code file://} URIs. A profile whose {@code extract.path} cannot match any of them (a
 * {@code gs://} path, or a {@code file://} glob outside the folder) would never load a file, and a
 * run would say "nothing new" for ever: such a profile is a configuration error, found before
 * anything starts ({@code validate --landing} finds it too).
 */
public final class LandingScope {

  private LandingScope() {}

  /**
   * The profiles that cannot match a file inside {@code landing}, one error each naming the
   * profile's file and name, its {@code extract.path} and the landing folder; empty when every
   * profile can.
   */
  public static List<ProfileError> unreachable(List<TableProfile> profiles, Path landing) {
    ObjectLocation folder = ObjectLocation.file(landing);
    String prefix = folder.name().isEmpty() ? "" : folder.name() + "/";
    String folderUri = ObjectLocation.FILE + ":///" + prefix;
    List<ProfileError> errors = new ArrayList<>();
    for (TableProfile profile : profiles) {
      String path = profile.extract().path();
      Glob glob;
      try {
        glob = Glob.parse(path);
      } catch (IllegalArgumentException e) {
        continue; // the profile's own check reports it
      }
      String where = "profile \"" + profile.name() + "\" matches no file of the landing folder "
          + folderUri + ": ";
      if (!glob.scheme().equals(ObjectLocation.FILE)) {
        errors.add(new ProfileError(profile.source(), "extract.path",
            where + "\"" + path + "\" is a " + glob.scheme() + ":// path, and local and demo post only the"
                + " landing folder's files; write a file:// glob inside it (" + folderUri + "...)"));
      } else if (!glob.canMatchBelow(prefix)) {
        errors.add(new ProfileError(profile.source(), "extract.path",
            where + "\"" + path + "\" lies outside it, and local and demo post only the landing folder's"
                + " files; write a file:// glob inside it (" + folderUri + "...) or pass the folder the"
                + " profile names as --landing"));
      }
    }
    return List.copyOf(errors);
  }
}
