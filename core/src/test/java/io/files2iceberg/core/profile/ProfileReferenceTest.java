package io.files2iceberg.core.profile;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigRenderOptions;
import io.files2iceberg.core.docs.GeneratedFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * docs/reference/profile-keys.md and docs/profile.schema.json are what {@link ProfileReference}
 * generates from {@link ProfileKeys}, and every example profile passes the schema. Run with
 * {@code -Dfiles2iceberg.docs.regenerate=true} to rewrite the two files.
 */
class ProfileReferenceTest {

  private static final Path ROOT = Path.of("..");
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void referencePageIsTheOneGeneratedFromProfileKeys() throws IOException {
    assertGenerated(ProfileReference.PAGE, ProfileReference.markdown());
  }

  @Test
  void schemaIsTheOneGeneratedFromProfileKeys() throws IOException {
    assertGenerated(ProfileReference.SCHEMA, ProfileReference.jsonSchema());
  }

  @Test
  void referencePageGivesEveryKeyATypeADefaultAndAMeaning() {
    for (ProfileKeys.Key<?> key : ProfileKeys.keys()) {
      assertThat(key.doc().defaultValue()).as(key.path()).isNotBlank();
      assertThat(key.doc().description()).as(key.path()).isNotBlank().doesNotContain("|");
    }
  }

  @Test
  void everyExampleProfilePassesTheSchema() throws IOException {
    List<Path> examples = new ArrayList<>();
    for (String folder : List.of("examples/profiles", "examples/local", "examples/csv")) {
      try (Stream<Path> files = Files.list(ROOT.resolve(folder))) {
        files.filter(f -> f.getFileName().toString().matches(".+\\.(conf|ya?ml)"))
            .filter(f -> !f.getFileName().toString().startsWith("deployment."))
            .sorted()
            .forEach(examples::add);
      }
    }
    assertThat(examples).hasSizeGreaterThanOrEqualTo(3);

    for (Path example : examples) {
      assertThat(errors(asJson(example))).as(example.toString()).isEmpty();
    }
  }

  @Test
  void theProfilesPageYamlExampleAndAProfileSettingEveryKeyPassTheSchema() throws IOException {
    Matcher yaml = Pattern.compile("```yaml\\n(.*?)```", Pattern.DOTALL)
        .matcher(Files.readString(ROOT.resolve("docs/profiles.md")));
    assertThat(yaml.find()).as("a ```yaml block in docs/profiles.md").isTrue();

    assertThat(errors(JSON.valueToTree(new Yaml().load(yaml.group(1))))).isEmpty();
    assertThat(errors(hocon(ProfileFixtures.EVERY_KEY_HOCON))).isEmpty();
  }

  @Test
  void aMisspelledKeyIsFlaggedWhereItIs() {
    Set<ValidationMessage> errors = errors(hocon(ProfileFixtures.MINIMAL + "extract.max-batch-sise = 10\n"));

    assertThat(errors).extracting(ValidationMessage::getMessage)
        .anySatisfy(message -> assertThat(message)
            .contains("$.extract")
            .contains("max-batch-sise")
            .contains("is not defined in the schema"));
  }

  @Test
  void aCodeOutsideTheKeysValuesIsFlaggedAndAnyCaseOfACodePasses() {
    assertThat(errors(hocon(ProfileFixtures.MINIMAL + "extract.format = delta\n")))
        .extracting(ValidationMessage::getMessage)
        .anySatisfy(message -> assertThat(message).contains("$.extract.format"));

    assertThat(errors(hocon(ProfileFixtures.MINIMAL
        + "extract.format = CSV\nload.save-mode = overwrite\nload.partition-by = [dt]\n"))).isEmpty();
  }

  @Test
  void aMissingRequiredKeyAZeroBatchSizeAndAOnePartTableNameAreFlagged() {
    assertThat(errors(hocon("load.iceberg.table = \"a.b.c\"\n"))).as("no extract.path").isNotEmpty();
    assertThat(errors(hocon("extract.path = \"gs://b/raw/*.csv\"\n"))).as("no load.iceberg.table").isNotEmpty();
    assertThat(errors(hocon("extract.path = \"gs://b/raw/*.csv\"\nload.iceberg.table = null\n")))
        .as("load.iceberg.table = null").isNotEmpty();
    assertThat(errors(hocon(ProfileFixtures.MINIMAL + "extract.max-batch-size = 0\n")))
        .extracting(ValidationMessage::getMessage)
        .anySatisfy(message -> assertThat(message).contains("$.extract.max-batch-size"));
    assertThat(errors(hocon(ProfileFixtures.MINIMAL + "extract.max-batch-size = \"0\"\n"))).isNotEmpty();
    assertThat(errors(hocon(ProfileFixtures.MINIMAL + "extract.keep-checkpoints = 0\n"))).isNotEmpty();
    assertThat(errors(hocon(ProfileFixtures.MINIMAL + "extract.max-batch-bytes = 0\n"))).isNotEmpty();
    assertThat(errors(hocon("extract.path = \"gs://b/raw/*.csv\"\nload.iceberg.table = clicks\n")))
        .extracting(ValidationMessage::getMessage)
        .anySatisfy(message -> assertThat(message).contains("$.load.iceberg.table"));
    assertThat(errors(hocon("extract.path = \"gs://b/raw/*.csv\"\nload.iceberg.table = raw.clicks\n"))).isNotEmpty();

    assertThat(errors(hocon(ProfileFixtures.MINIMAL + "extract.max-batch-size = 1\n"))).isEmpty();
    assertThat(errors(JSON.valueToTree(new Yaml().load("extract.path: gs://b/raw/*.csv\nload:\n  iceberg:\n"
        + "    table: a.b.c\n")))).isEmpty();
  }

  @Test
  void everySchemaEvolutionModePassesAndTheBooleanOfOldStillDoes() {
    for (String mode : List.of("add-new-columns", "fail-on-new-columns", "rescue", "NONE", "true", "false")) {
      assertThat(errors(hocon(ProfileFixtures.MINIMAL + "load.schema-evolution = " + mode + "\n"))).as(mode).isEmpty();
    }
    assertThat(errors(hocon(ProfileFixtures.MINIMAL + "load.schema-evolution = sometimes\n"))).isNotEmpty();
  }

  @Test
  void aDottedYamlKeyPassesAsItsNestedForm() {
    Object profile = new Yaml().load("""
        extract.path: "gs://b/raw/*.csv"
        extract:
          batch-file.success-file-filter: false
        load:
          iceberg.table: a.b.c
        transform:
          cast.columns: {amount: "DECIMAL(12,2)"}
        """);

    assertThat(errors(JSON.valueToTree(profile))).isEmpty();
  }

  private static void assertGenerated(String file, String generated) throws IOException {
    GeneratedFile.assertCommitted(ROOT.resolve(file), generated, "ProfileKeys",
        "mvn -o -B -pl core test -Dtest=ProfileReferenceTest -D" + GeneratedFile.REGENERATE + "=true");
  }

  private static Set<ValidationMessage> errors(JsonNode profile) {
    JsonSchema schema = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012)
        .getSchema(ProfileReference.jsonSchema());
    return schema.validate(profile);
  }

  private static JsonNode asJson(Path file) throws IOException {
    String name = file.getFileName().toString();
    if (name.endsWith(".conf")) {
      return hocon(Files.readString(file));
    }
    return JSON.valueToTree(new Yaml().load(Files.readString(file)));
  }

  /** HOCON as JSON, through Typesafe Config: dotted keys nest, substitutions resolve. */
  private static JsonNode hocon(String text) {
    try {
      return JSON.readTree(ConfigFactory.parseString(text).resolve().root()
          .render(ConfigRenderOptions.concise()));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
