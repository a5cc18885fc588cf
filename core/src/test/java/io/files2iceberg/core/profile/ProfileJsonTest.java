package io.files2iceberg.core.profile;

import static io.files2iceberg.core.profile.ProfileFixtures.EVERY_KEY_HOCON;
import static io.files2iceberg.core.profile.ProfileFixtures.withSource;
import static io.files2iceberg.core.profile.ProfileFixtures.write;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProfileJsonTest {

  private static final ObjectMapper MAPPER = new ObjectMapper();

  @TempDir Path dir;

  private Home home() {
    return new Home(dir.resolve("home"));
  }

  /** Renders the profile, saves it without name and source as HOCON, and loads that. */
  private TableProfile roundTrip(TableProfile profile, String folder) throws Exception {
    JsonNode rendered = MAPPER.readTree(ProfileJson.render(List.of(profile))).get(0);
    assertThat(rendered.get("name").asText()).isEqualTo(profile.name());
    assertThat(rendered.get("source").asText()).isEqualTo(profile.source().toString());
    ObjectNode keys = ((ObjectNode) rendered).deepCopy();
    keys.remove(List.of("name", "source"));
    Path saved = write(dir.resolve(folder), profile.name() + ".conf", keys.toPrettyString());
    TableProfile loaded = ProfileLoader.load(saved, home());
    return withSource(loaded, profile.source());
  }

  @Test
  void renderedExampleLoadsBackToTheSameProfile() throws Exception {
    TableProfile example =
        ProfileLoader.load(Path.of("src/test/resources/profiles/clickstream.conf"), home());

    assertThat(roundTrip(example, "out")).isEqualTo(example);
  }

  @Test
  void renderedProfileSettingEveryKeyLoadsBackToTheSameProfile() throws Exception {
    TableProfile profile = ProfileLoader.load(write(dir, "orders.conf", EVERY_KEY_HOCON), home());

    assertThat(roundTrip(profile, "out")).isEqualTo(profile);
  }

  @Test
  void toJsonIsOneElementOfRenderOnOneLine() throws Exception {
    TableProfile profile = ProfileLoader.load(write(dir, "orders.conf", EVERY_KEY_HOCON), home());

    String json = ProfileJson.toJson(profile);

    assertThat(json).doesNotContain("\n");
    assertThat(MAPPER.readTree(json))
        .isEqualTo(MAPPER.readTree(ProfileJson.render(List.of(profile))).get(0));
  }

  @Test
  void parsedJsonOfTheExampleIsTheExample() throws Exception {
    TableProfile example =
        ProfileLoader.load(Path.of("src/test/resources/profiles/clickstream.conf"), home());

    TableProfile parsed =
        ProfileLoader.parse(ProfileJson.toJson(example), example.source(), home());

    assertThat(parsed).isEqualTo(example);
  }

  @Test
  void parsedJsonOfAProfileSettingEveryKeyIsThatProfile() throws Exception {
    TableProfile profile = ProfileLoader.load(write(dir, "orders.conf", EVERY_KEY_HOCON), home());

    TableProfile parsed =
        ProfileLoader.parse(ProfileJson.toJson(profile), profile.source(), home());

    assertThat(parsed).isEqualTo(profile);
  }

  @Test
  void parsedJsonDoesNotDependOnTheHomeItIsParsedIn() throws Exception {
    TableProfile profile =
        ProfileLoader.load(write(dir, "clicks.conf", ProfileFixtures.MINIMAL), home());

    TableProfile parsed =
        ProfileLoader.parse(
            ProfileJson.toJson(profile), profile.source(), new Home(dir.resolve("other-home")));

    assertThat(parsed).isEqualTo(profile);
  }

  @Test
  void renderedProfileHasEveryKnownKeyWithDefaultsFilledIn() throws Exception {
    Path file = write(dir, "clicks.conf", ProfileFixtures.MINIMAL);
    JsonNode rendered =
        MAPPER.readTree(ProfileJson.render(List.of(ProfileLoader.load(file, home())))).get(0);

    List<String> leaves = new ArrayList<>();
    collectLeaves(rendered, "", leaves);

    // Keys sharing a parent are grouped, so the order may differ from ProfileKeys'.
    assertThat(leaves).containsExactlyInAnyOrderElementsOf(ProfileKeys.all());
    assertThat(rendered.at("/extract/batch-file/pattern").isNull()).isTrue();
    assertThat(rendered.at("/extract/max-batch-size").asInt()).isEqualTo(100);
    assertThat(rendered.at("/load/save-mode").asText()).isEqualTo("Append");
    assertThat(rendered.has("job") || rendered.has("ledger") || rendered.has("listener")).isFalse();
    assertThat(rendered.at("/extract/batch-file/partition-column").asText()).isEqualTo("partition");
    assertThat(rendered.at("/extract/lineage-columns").isEmpty()).isTrue();
    assertThat(rendered.at("/extract/quarantine-bad-files").asBoolean()).isFalse();
    assertThat(rendered.at("/transform/on-bad-record").asText()).isEqualTo("fail");
    assertThat(rendered.at("/load/schema-evolution").asText()).isEqualTo("add-new-columns");
    assertThat(rendered.at("/load/iceberg/table-properties").isObject()).isTrue();
    assertThat(rendered.at("/load/iceberg/table-properties").isEmpty()).isTrue();
  }

  @Test
  void emptyListOfProfilesRendersAnEmptyArray() throws Exception {
    assertThat(MAPPER.readTree(ProfileJson.render(List.of())).isArray()).isTrue();
    assertThat(MAPPER.readTree(ProfileJson.render(List.of())).size()).isZero();
  }

  @Test
  void durationsRenderInTheLargestWholeUnit() {
    assertThat(
            Map.of(
                Duration.ofMinutes(30), "30m",
                Duration.ofSeconds(90), "90s",
                Duration.ofHours(2), "2h",
                Duration.ofMillis(1500), "1500ms"))
        .allSatisfy((duration, text) -> assertThat(ValueType.format(duration)).isEqualTo(text));
  }

  /** Leaf paths; free-form maps (extract.options and such) are leaves, whatever they hold. */
  private static void collectLeaves(JsonNode node, String path, List<String> leaves) {
    node.fields()
        .forEachRemaining(
            field -> {
              String childPath = path.isEmpty() ? field.getKey() : path + "." + field.getKey();
              if (path.isEmpty()
                  && (field.getKey().equals("name") || field.getKey().equals("source"))) {
                return;
              }
              if (field.getValue().isObject() && !ProfileKeys.isFreeForm(childPath)) {
                collectLeaves(field.getValue(), childPath, leaves);
              } else {
                leaves.add(childPath);
              }
            });
  }
}
