package io.files2iceberg.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/deploy.md ("Deploy on GCP") names every variable a user can set, and its lists (the APIs,
 * the roles of each account, the custom role's permissions) are the module's, so they cannot drift.
 */
class DeployPageTest {

  static String deploySection() {
    String page = Repository.read(Repository.DOCS.resolve("deploy.md"));
    assertThat(page).as("docs/deploy.md starts with \"# Deploy on GCP\"").startsWith("# Deploy on GCP\n");
    return page;
  }

  @Test
  void everyVariableOfTheModuleAndTheExampleIsNamedInTheDeployPage() {
    String section = deploySection();
    for (Path folder : new Path[] {Repository.MODULE, Repository.EXAMPLE}) {
      for (String name : Hcl.parse(folder).variables().keySet()) {
        assertThat(section).as("docs/deploy.md names %s of %s", name, folder).contains("`" + name + "`");
      }
    }
  }

  @Test
  void theDeployPageComesRightBeforeOperateInTheSite() {
    List<String> nav = DocumentationLinksTest.navPages();

    assertThat(nav).contains("deploy.md", "operate.md");
    assertThat(nav.indexOf("operate.md")).isEqualTo(nav.indexOf("deploy.md") + 1);
  }

  @Test
  void theDeployPagesApiListIsExactlyTheModulesApis() {
    String section = between(deploySection(), "### APIs the module enables\n", "\n### ");
    List<String> listed =
        Pattern.compile("(?m)^- `([a-z0-9.-]+)`$").matcher(section).results().map(m -> m.group(1)).toList();

    assertThat(listed).containsExactlyElementsOf(FirstApplyTest.moduleApis());
  }

  @Test
  void theStepBeforeTerraformEnablesWhatTerraformAndTheImagesNeedFirst() {
    String step = between(deploySection(), "2. **Enable the APIs", "3. **Buckets**");

    // google_project_service itself calls Service Usage and Resource Manager.
    assertThat(step)
        .contains("serviceusage.googleapis.com", "cloudresourcemanager.googleapis.com")
        .contains("artifactregistry.googleapis.com", "cloudbuild.googleapis.com")
        .contains("compute.googleapis.com", "biglake.googleapis.com");
  }

  @Test
  void theImageStepGivesCloudBuildsAccountWhatAnImageBuildNeeds() {
    // New projects run Cloud Build as the Compute Engine default account, possibly without any
    // role: no image, and neither Cloud Run service can be created.
    String step = between(deploySection(), "6. **Artifact Registry and the two images**", "7. **The job jar**");

    assertThat(step)
        .contains("gcloud builds get-default-service-account")
        .contains("--role=roles/cloudbuild.builds.builder");
    assertThat(step.indexOf("roles/cloudbuild.builds.builder")).isLessThan(step.indexOf("gcloud builds submit"));
  }

  @Test
  void theFirstApplySectionOrdersInitApplyAndTheSecondApplyAndAnswersEachPolicyWithAModuleVariable() {
    String section = between(deploySection(), "## First apply on a new project\n", "\n## Variables");
    String order = between(section, "### Order of commands", "What a second apply fixes");

    assertThat(order.indexOf("`terraform init`")).isPositive();
    assertThat(order.indexOf("`terraform apply`")).isGreaterThan(order.indexOf("`terraform init`"));
    assertThat(order.indexOf("`terraform apply -parallelism=1`")).isGreaterThan(order.indexOf("`terraform apply`"));
    assertThat(order).contains("hashicorp/google-beta");

    String policies = between(section, "### Organisation policies that matter", "### Check each link");
    Map<String, Object> variables = Hcl.parse(Repository.MODULE).variables();
    for (String[] policy :
        new String[][] {
          {"constraints/gcp.resourceLocations", "secret_replication_locations"},
          {"constraints/run.allowedIngress", "listener_ingress"},
          {"constraints/compute.skipDefaultNetworkCreation", "dataproc_subnetwork"},
        }) {
      String row = policies.lines().filter(line -> line.contains(policy[0])).findFirst().orElse("");
      assertThat(row).as("the policies table's row of %s", policy[0]).contains("`" + policy[1]);
      assertThat(variables).containsKey(policy[1]);
    }
  }

  @Test
  void theDeployPagesIamTableListsExactlyTheRolesTheModuleGrantsEachAccount() {
    assertThat(documentedRoles()).isEqualTo(grantedRoles(Hcl.parse(Repository.MODULE)));
  }

  @Test
  void theBatchSubmitterPermissionsInTheDocsAreTheCustomRolesPermissions() {
    List<String> permissions =
        Hcl.list(
                Hcl.parse(Repository.MODULE)
                    .resource("google_project_iam_custom_role", "batch_submitter")
                    .get("permissions"))
            .stream()
            .map(String::valueOf)
            .toList();
    String batcherRow = iamRows().get("batcher");
    String batcherPage = Repository.read(Repository.DOCS.resolve("batcher.md"));
    String batcherPageIam = between(batcherPage, "- The batcher's identity:", "- The job's service account:");

    assertThat(dataprocPermissions(batcherRow)).containsExactlyElementsOf(permissions);
    assertThat(dataprocPermissions(batcherPageIam)).containsExactlyElementsOf(permissions);
  }

  private static List<String> dataprocPermissions(String text) {
    return Pattern.compile("`(dataproc\\.[a-z]+\\.[a-z]+)`").matcher(text).results().map(m -> m.group(1)).toList();
  }

  private static String between(String text, String start, String end) {
    int from = text.indexOf(start);
    assertThat(from).as("the page has %s", start).isNotNegative();
    int to = text.indexOf(end, from + start.length());
    assertThat(to).as("the page has %s after %s", end, start).isPositive();
    return text.substring(from, to);
  }

  /** The IAM table's rows by account: listener ... scheduler, gcs, pubsub, catalog. */
  private static Map<String, String> iamRows() {
    String table = between(deploySection(), "| account | roles |\n", "\n\n");
    Map<String, String> rows = new TreeMap<>();
    for (String row : table.split("\n")) {
      String[] cells = row.split(" \\| ", 2);
      if (cells.length < 2 || row.startsWith("|---") || row.startsWith("| account |")) {
        continue;
      }
      String who = cells[0];
      Matcher account = Pattern.compile("`<name>-(\\w+)`").matcher(who);
      String key =
          account.find() ? account.group(1)
              : who.contains("GCS service agent") ? "gcs"
              : who.contains("Pub/Sub service agent") ? "pubsub"
              : who.contains("catalog_service_account") ? "catalog"
              : who;
      rows.put(key, cells[1]);
    }
    assertThat(rows).as("docs/deploy.md's IAM table").isNotEmpty();
    return rows;
  }

  /** Each account's roles as the IAM table names them; "custom role" for the batch submitter. */
  private static Map<String, Set<String>> documentedRoles() {
    Map<String, Set<String>> roles = new TreeMap<>();
    iamRows()
        .forEach(
            (account, text) -> {
              Set<String> named = new TreeSet<>();
              Pattern.compile("`(roles/[A-Za-z.]+)`").matcher(text).results().forEach(m -> named.add(m.group(1)));
              if (text.contains("a custom role")) {
                named.add("custom role");
              }
              roles.put(account, named);
            });
    return roles;
  }

  /** Each account's roles as the module grants them (every *_iam_member resource). */
  static Map<String, Set<String>> grantedRoles(Hcl module) {
    Map<String, Set<String>> roles = new TreeMap<>();
    module
        .allResources()
        .forEach(
            (type, byName) -> {
              if (!type.endsWith("_iam_member")) {
                return;
              }
              byName.forEach(
                  (name, grant) -> {
                    String role = String.valueOf(grant.get("role"));
                    String granted = role.startsWith("google_project_iam_custom_role.") ? "custom role" : role;
                    for (String account : members(module, type + "." + name, grant)) {
                      roles.computeIfAbsent(account, a -> new TreeSet<>()).add(granted);
                    }
                  });
            });
    assertThat(roles).as("the module's grants").containsKeys("listener", "batcher", "job", "pubsub", "catalog");
    return roles;
  }

  /** Who a grant's member is (hcl4j gives interpolations without their ${}). */
  private static Set<String> members(Hcl module, String where, Map<String, Object> grant) {
    String member = String.valueOf(grant.get("member"));
    if (member.equals("serviceAccount:each.value")) {
      Object forEach = grant.get("for_each");
      if (forEach instanceof String local && local.startsWith("local.")) {
        forEach = module.blocks("locals").get(local.substring("local.".length()));
      }
      assertThat(forEach).as("%s: for_each over accounts by name", where).isInstanceOf(Map.class);
      return new TreeSet<>(((Map<?, ?>) forEach).keySet().stream().map(String::valueOf).toList());
    }
    Matcher account = Pattern.compile("google_service_account\\.(\\w+)\\.email").matcher(member);
    if (account.find()) {
      return Set.of(account.group(1));
    }
    if (member.equals("local.pubsub_service_agent")) {
      return Set.of("pubsub");
    }
    if (member.contains("data.google_storage_project_service_account.gcs")) {
      return Set.of("gcs");
    }
    if (member.contains("var.catalog_service_account")) {
      return Set.of("catalog");
    }
    throw new AssertionError(where + ": member " + member + " is no account the deploy page knows");
  }
}
