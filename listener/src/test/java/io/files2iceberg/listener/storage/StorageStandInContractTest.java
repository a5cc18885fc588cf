package io.files2iceberg.listener.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.api.gax.paging.Page;
import com.google.cloud.NoCredentials;
import com.google.cloud.ReadChannel;
import com.google.cloud.WriteChannel;
import com.google.cloud.storage.Blob;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageException;
import com.google.cloud.storage.StorageOptions;
import com.google.cloud.storage.contrib.nio.testing.LocalStorageHelper;
import io.files2iceberg.core.storage.StorageStandIn;
import io.files2iceberg.core.storage.StorageStandIn.FinalizedObject;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link StorageStandIn} answers the Java Storage client as {@link LocalStorageHelper} does, on
 * every call both support; generations and preconditions, which {@code LocalStorageHelper} lacks,
 * are checked against the JSON API's documented behaviour (a new generation per write, 412 when a
 * precondition does not hold, 404 for a generation that is no longer live).
 */
class StorageStandInContractTest {
  private static final String BUCKET = "contract";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @TempDir
  static Path root;

  private static StorageStandIn standIn;
  private static final List<FinalizedObject> finalized = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void startStandIn() {
    standIn = StorageStandIn.start(root);
    standIn.createBucket(BUCKET);
    standIn.onFinalize(finalized::add);
  }

  @AfterAll
  static void stopStandIn() {
    standIn.close();
  }

  private static Storage standInClient() {
    return StorageOptions.newBuilder()
        .setHost(standIn.endpoint())
        .setProjectId("test-project")
        .setCredentials(NoCredentials.getInstance())
        .build()
        .getService();
  }

  /** Each test gets its own folder, so both stores start empty for it. */
  static Stream<Named<Storage>> storages() {
    return Stream.of(
        Named.of("stand-in", standInClient()),
        Named.of("LocalStorageHelper", LocalStorageHelper.customOptions(false).getService()));
  }

  private static String folder() {
    return "t" + System.nanoTime() + "/";
  }

  private static Blob create(Storage storage, String name, String content) {
    return storage.create(BlobInfo.newBuilder(BUCKET, name).setContentType("text/csv").build(),
        content.getBytes(StandardCharsets.UTF_8));
  }

  private static List<String> names(Page<Blob> page) {
    List<String> names = new ArrayList<>();
    page.getValues().forEach(blob -> names.add(blob.getName() + (blob.isDirectory() ? " (folder)" : "")));
    return names;
  }

  // ---- the same answers as LocalStorageHelper ----

  @ParameterizedTest
  @MethodSource("storages")
  void createdObjectIsReadBackWithItsMetadata(Storage storage) {
    String name = folder() + "a.csv";
    create(storage, name, "id,v\n1,x\n");

    Blob blob = storage.get(BlobId.of(BUCKET, name));

    assertThat(blob.getName()).isEqualTo(name);
    assertThat(blob.getBucket()).isEqualTo(BUCKET);
    assertThat(blob.getSize()).isEqualTo(9L);
    assertThat(blob.getContentType()).isEqualTo("text/csv");
    assertThat(new String(storage.readAllBytes(BlobId.of(BUCKET, name)), StandardCharsets.UTF_8))
        .isEqualTo("id,v\n1,x\n");
  }

  @ParameterizedTest
  @MethodSource("storages")
  void missingObjectIsNullAndItsReadIsA404(Storage storage) {
    BlobId missing = BlobId.of(BUCKET, folder() + "missing.csv");

    assertThat(storage.get(missing)).isNull();
    assertThatThrownBy(() -> storage.readAllBytes(missing))
        .isInstanceOfSatisfying(StorageException.class, e -> assertThat(e.getCode()).isEqualTo(404))
        .hasMessageContaining("missing.csv");
  }

  @ParameterizedTest
  @MethodSource("storages")
  void emptyObjectIsReadAsNoBytes(Storage storage) throws IOException {
    BlobId id = BlobId.of(BUCKET, folder() + "_SUCCESS");
    storage.create(BlobInfo.newBuilder(id).build(), new byte[0]);

    assertThat(storage.get(id).getSize()).isZero();
    assertThat(storage.readAllBytes(id)).isEmpty();
    try (ReadChannel reader = storage.reader(id)) {
      assertThat(reader.read(ByteBuffer.allocate(8))).isEqualTo(-1);
    }
  }

  @ParameterizedTest
  @MethodSource("storages")
  void readerThatSeeksReadsFromThatOffset(Storage storage) throws IOException {
    String name = folder() + "digits.txt";
    create(storage, name, "0123456789");

    try (ReadChannel reader = storage.reader(BlobId.of(BUCKET, name))) {
      reader.seek(6);
      ByteBuffer buffer = ByteBuffer.allocate(16);
      while (reader.read(buffer) >= 0) {
        // until the end of the object
      }
      assertThat(new String(buffer.array(), 0, buffer.position(), StandardCharsets.UTF_8)).isEqualTo("6789");
    }
  }

  @ParameterizedTest
  @MethodSource("storages")
  void listingWithCurrentDirectoryShowsObjectsAndSubfolders(Storage storage) {
    String folder = folder();
    for (String name : List.of("raw/a.csv", "raw/dt=1/b.csv", "raw/dt=1/c.csv", "raw/dt=2/d.csv", "other/e.csv")) {
      create(storage, folder + name, name);
    }

    Page<Blob> page = storage.list(BUCKET, Storage.BlobListOption.prefix(folder + "raw/"),
        Storage.BlobListOption.currentDirectory());

    assertThat(names(page)).containsExactlyInAnyOrder(
        folder + "raw/a.csv", folder + "raw/dt=1/ (folder)", folder + "raw/dt=2/ (folder)");
  }

  /**
   * Checked against the JSON API alone: {@code LocalStorageHelper} cuts a listing at {@code
   * maxResults} and gives no page token, so the rest is never listed.
   */
  @Test
  void listingInPagesYieldsEveryObjectOnceInNameOrder() {
    Storage storage = standInClient();
    String folder = folder();
    for (String name : List.of("e", "a", "c", "b", "d")) {
      create(storage, folder + name, name);
    }

    Page<Blob> first = storage.list(BUCKET, Storage.BlobListOption.prefix(folder), Storage.BlobListOption.pageSize(2));
    List<String> all = StreamSupport.stream(first.iterateAll().spliterator(), false).map(Blob::getName).toList();

    assertThat(names(first)).hasSize(2);
    assertThat(first.hasNextPage()).isTrue();
    assertThat(all).containsExactly(folder + "a", folder + "b", folder + "c", folder + "d", folder + "e");
  }

  @Test
  void pagedListingWithADelimiterCountsEachFolderOnceAcrossPages() {
    Storage storage = standInClient();
    String folder = folder();
    for (String name : List.of("a", "b/1", "b/2", "b/3", "c", "d/1", "e")) {
      create(storage, folder + name, name);
    }

    Page<Blob> page = storage.list(BUCKET, Storage.BlobListOption.prefix(folder), Storage.BlobListOption.currentDirectory(),
        Storage.BlobListOption.pageSize(2));
    List<List<String>> pages = new ArrayList<>();
    for (; page != null; page = page.getNextPage()) {
      pages.add(names(page).stream().map(n -> n.substring(folder.length())).toList());
    }

    assertThat(pages).containsExactly(List.of("a", "b/ (folder)"), List.of("c", "d/ (folder)"), List.of("e"));
  }

  @ParameterizedTest
  @MethodSource("storages")
  void deleteRemovesTheObjectAndSaysWhetherThereWasOne(Storage storage) {
    BlobId id = BlobId.of(BUCKET, folder() + "gone.csv");
    create(storage, id.getName(), "x");

    assertThat(storage.delete(id)).isTrue();
    assertThat(storage.get(id)).isNull();
    assertThat(storage.delete(id)).isFalse();
  }

  /** Checked against the JSON API alone: {@code LocalStorageHelper} has no batch ("Not implemented yet"). */
  @Test
  void batchDeleteRemovesEachObjectAndSaysWhichExisted() {
    Storage storage = standInClient();
    String folder = folder();
    create(storage, folder + "a", "a");
    create(storage, folder + "b", "b");

    List<Boolean> deleted = storage.delete(BlobId.of(BUCKET, folder + "a"), BlobId.of(BUCKET, folder + "missing"),
        BlobId.of(BUCKET, folder + "b"));

    assertThat(deleted).containsExactly(true, false, true);
    assertThat(names(storage.list(BUCKET, Storage.BlobListOption.prefix(folder)))).isEmpty();
  }

  @ParameterizedTest
  @MethodSource("storages")
  void writerUploadsAMultiMebibyteObjectInChunks(Storage storage) throws IOException {
    byte[] content = new byte[5 * 1024 * 1024 + 123];
    new Random(24).nextBytes(content);
    BlobId id = BlobId.of(BUCKET, folder() + "big.bin");

    try (WriteChannel writer = storage.writer(BlobInfo.newBuilder(id).build())) {
      writer.setChunkSize(1024 * 1024);
      for (int at = 0; at < content.length; at += 700_000) {
        writer.write(ByteBuffer.wrap(content, at, Math.min(700_000, content.length - at)));
      }
    }

    assertThat(storage.get(id).getSize()).isEqualTo(content.length);
    assertThat(storage.readAllBytes(id)).isEqualTo(content);
  }

  @ParameterizedTest
  @MethodSource("storages")
  void namesWithSpacesPercentBracketsWildcardsAndNonAsciiAreKeptByteForByte(Storage storage) {
    String folder = folder();
    List<String> names = List.of("a b/%41%2F.csv", "[1]/{x,y}.csv", "*?/ü é/日本.csv", "plus+sign/#hash;semi=1");
    for (String name : names) {
      create(storage, folder + name, name);
    }

    for (String name : names) {
      assertThat(storage.get(BlobId.of(BUCKET, folder + name)).getName()).isEqualTo(folder + name);
      assertThat(new String(storage.readAllBytes(BlobId.of(BUCKET, folder + name)), StandardCharsets.UTF_8))
          .isEqualTo(name);
    }
    assertThat(names(storage.list(BUCKET, Storage.BlobListOption.prefix(folder + "[1]/"))))
        .containsExactly(folder + "[1]/{x,y}.csv");
  }

  // ---- generations and preconditions, as the JSON API documents them ----

  @Test
  void everyWriteIsANewLargerGenerationThatReplacesTheLiveOne() {
    Storage storage = standInClient();
    String name = folder() + "rewritten.csv";

    long first = create(storage, name, "v1").getGeneration();
    long second = create(storage, name, "v2").getGeneration();
    long third = standIn.put(BUCKET, name, "v3".getBytes(StandardCharsets.UTF_8));

    assertThat(second).isGreaterThan(first);
    assertThat(third).isGreaterThan(second);
    assertThat(storage.get(BlobId.of(BUCKET, name)).getGeneration()).isEqualTo(third);
    assertThat(storage.readAllBytes(BlobId.of(BUCKET, name))).asString().isEqualTo("v3");
  }

  @Test
  void readPinnedToAGenerationThatIsNoLongerLiveIsA404() {
    Storage storage = standInClient();
    String name = folder() + "pinned.csv";
    long old = create(storage, name, "old").getGeneration();
    long live = create(storage, name, "new").getGeneration();

    assertThat(storage.readAllBytes(BlobId.of(BUCKET, name, live))).asString().isEqualTo("new");
    assertThat(storage.get(BlobId.of(BUCKET, name, old))).isNull();
    assertThatThrownBy(() -> storage.readAllBytes(BlobId.of(BUCKET, name, old)))
        .isInstanceOfSatisfying(StorageException.class, e -> assertThat(e.getCode()).isEqualTo(404))
        .hasMessageContaining("No such object: " + BUCKET + "/" + name);
  }

  @Test
  void createThatMustNotExistFailsWith412WhenTheObjectExists() {
    Storage storage = standInClient();
    BlobInfo info = BlobInfo.newBuilder(BUCKET, folder() + "once.json").build();

    Blob created = storage.create(info, "1".getBytes(StandardCharsets.UTF_8), Storage.BlobTargetOption.doesNotExist());

    assertThat(created.getGeneration()).isPositive();
    assertThatThrownBy(() -> storage.create(info, "2".getBytes(StandardCharsets.UTF_8),
        Storage.BlobTargetOption.doesNotExist()))
        .isInstanceOfSatisfying(StorageException.class, e -> assertThat(e.getCode()).isEqualTo(412))
        .hasMessageContaining("At least one of the pre-conditions you specified did not hold.");
    assertThat(storage.readAllBytes(info.getBlobId())).asString().isEqualTo("1");
  }

  @Test
  void createThatMustMatchAGenerationFailsWith412OnAnotherGeneration() {
    Storage storage = standInClient();
    String name = folder() + "state.json";
    long live = create(storage, name, "1").getGeneration();

    assertThatThrownBy(() -> storage.create(BlobInfo.newBuilder(BlobId.of(BUCKET, name, live - 1)).build(),
        "2".getBytes(StandardCharsets.UTF_8), Storage.BlobTargetOption.generationMatch()))
        .isInstanceOfSatisfying(StorageException.class, e -> assertThat(e.getCode()).isEqualTo(412))
        .hasMessageContaining("At least one of the pre-conditions you specified did not hold.");
    Blob next = storage.create(BlobInfo.newBuilder(BlobId.of(BUCKET, name, live)).build(),
        "3".getBytes(StandardCharsets.UTF_8), Storage.BlobTargetOption.generationMatch());
    assertThat(next.getGeneration()).isGreaterThan(live);
  }

  @Test
  void writerThatMustNotExistFailsWith412WhenTheObjectExists() {
    Storage storage = standInClient();
    String name = folder() + "claimed.bin";
    create(storage, name, "first");

    assertThatThrownBy(() -> {
      try (WriteChannel writer = storage.writer(BlobInfo.newBuilder(BUCKET, name).build(),
          Storage.BlobWriteOption.doesNotExist())) {
        writer.write(ByteBuffer.wrap("second".getBytes(StandardCharsets.UTF_8)));
      }
    }).isInstanceOfSatisfying(StorageException.class, e -> assertThat(e.getCode()).isEqualTo(412))
        .hasMessageContaining("At least one of the pre-conditions you specified did not hold.");
    assertThat(storage.readAllBytes(BlobId.of(BUCKET, name))).asString().isEqualTo("first");
  }

  @Test
  void deleteOfAGenerationThatIsNoLongerLiveFailsAndKeepsTheObject() {
    Storage storage = standInClient();
    String name = folder() + "kept.csv";
    long old = create(storage, name, "old").getGeneration();
    create(storage, name, "new");

    assertThatThrownBy(() -> storage.delete(BlobId.of(BUCKET, name), Storage.BlobSourceOption.generationMatch(old)))
        .isInstanceOfSatisfying(StorageException.class, e -> assertThat(e.getCode()).isEqualTo(412))
        .hasMessageContaining("At least one of the pre-conditions you specified did not hold.");
    assertThat(storage.readAllBytes(BlobId.of(BUCKET, name))).asString().isEqualTo("new");
  }

  @Test
  void ofConcurrentCreatesThatMustNotExistExactlyOneWins() throws Exception {
    Storage storage = standInClient();
    BlobInfo info = BlobInfo.newBuilder(BUCKET, folder() + "claim.json").build();
    int writers = 8;
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(writers);
    java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
    List<java.util.concurrent.Future<Integer>> outcomes = new ArrayList<>();
    try {
      for (int i = 0; i < writers; i++) {
        byte[] content = ("writer " + i).getBytes(StandardCharsets.UTF_8);
        outcomes.add(pool.submit(() -> {
          start.await();
          try {
            storage.create(info, content, Storage.BlobTargetOption.doesNotExist());
            return 200;
          } catch (StorageException e) {
            return e.getCode();
          }
        }));
      }
      start.countDown();
      List<Integer> codes = new ArrayList<>();
      for (java.util.concurrent.Future<Integer> outcome : outcomes) {
        codes.add(outcome.get());
      }

      assertThat(codes).containsOnly(200, 412);
      assertThat(codes).filteredOn(code -> code == 200).hasSize(1);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void bucketMetadataIsServedAndAMissingBucketIsNull() {
    Storage storage = standInClient();

    assertThat(storage.get(BUCKET).getName()).isEqualTo(BUCKET);
    assertThat(storage.get("no-such-bucket")).isNull();
    assertThatThrownBy(() -> storage.readAllBytes(BlobId.of("no-such-bucket", "a.csv")))
        .isInstanceOfSatisfying(StorageException.class, e -> assertThat(e.getCode()).isEqualTo(404))
        .hasMessageContaining("The specified bucket does not exist.");
  }

  // ---- what a test sees of the stand-in ----

  @Test
  void callTheStandInDoesNotServeIsA501NamingIt() {
    Storage storage = standInClient();
    String name = folder() + "source.csv";
    create(storage, name, "x");

    assertThatThrownBy(() -> storage.compose(Storage.ComposeRequest.of(BUCKET, List.of(name), name + ".joined")))
        .isInstanceOfSatisfying(StorageException.class, e -> assertThat(e.getCode()).isEqualTo(501))
        .hasMessageContaining("StorageStandIn does not serve POST /storage/v1/b/" + BUCKET + "/o/")
        .hasMessageContaining("compose");
  }


  @Test
  void finalizeListenerGetsTheObjectResourceAsAMetadataGetReturnsIt() throws Exception {
    String name = folder() + "dt=2024-01-01/part 1.parquet";
    long generation = create(standInClient(), name, "rows").getGeneration();

    FinalizedObject event = finalized.stream().filter(f -> f.name().equals(name)).findFirst().orElseThrow();
    HttpResponse<String> get = HTTP.send(HttpRequest.newBuilder(URI.create(standIn.endpoint()
        + "/storage/v1/b/" + BUCKET + "/o/" + name.replace("/", "%2F").replace(" ", "%20"))).build(),
        HttpResponse.BodyHandlers.ofString());

    assertThat(event.generation()).isEqualTo(generation);
    assertThat(JSON.readTree(event.resourceJson())).isEqualTo(JSON.readTree(get.body()));
    assertThat(event.notificationAttributes())
        .containsEntry("eventType", "OBJECT_FINALIZE")
        .containsEntry("payloadFormat", "JSON_API_V1")
        .containsEntry("bucketId", BUCKET)
        .containsEntry("objectId", name)
        .containsEntry("objectGeneration", Long.toString(generation));
  }

  @Test
  void putIntoABucketThatWasNeverCreatedFailsNamingIt() {
    assertThatThrownBy(() -> standIn.put("never-created", "a.csv", new byte[1]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("No such bucket: never-created (createBucket first)");
  }

  @Test
  void namesThatCannotBeAPathAreKeptApartAndServedAlike() throws IOException {
    String folder = folder();
    List<String> names = List.of(folder + "a", folder + "a/b", folder + "dir/", folder + "x//y", folder + "./z");
    for (String name : names) {
      standIn.put(BUCKET, name, name.getBytes(StandardCharsets.UTF_8));
    }

    for (String name : names) {
      assertThat(standInClient().readAllBytes(BlobId.of(BUCKET, name))).asString().isEqualTo(name);
      assertThat(Files.readString(standIn.file(BUCKET, name))).isEqualTo(name);
    }
    assertThat(standIn.file(BUCKET, folder + "a")).isEqualTo(root.resolve(BUCKET).resolve(folder + "a"));
  }

  @Test
  void objectBytesAreAFileUnderTheRootFolder() throws IOException {
    String name = folder() + "raw/x.csv";
    standIn.put(BUCKET, name, "a,b\n".getBytes(StandardCharsets.UTF_8), "text/csv");

    assertThat(standIn.file(BUCKET, name)).isEqualTo(root.resolve(BUCKET).resolve(name));
    assertThat(Files.readString(standIn.file(BUCKET, name))).isEqualTo("a,b\n");
    assertThat(standInClient().get(BlobId.of(BUCKET, name)).getContentType()).isEqualTo("text/csv");
  }

  @Test
  void metadataGetAnswersOnlyTheFieldsAskedFor() {
    String name = folder() + "f.csv";
    long generation = standIn.put(BUCKET, name, "x".getBytes(StandardCharsets.UTF_8));

    Blob blob = standInClient().get(BlobId.of(BUCKET, name), Storage.BlobGetOption.fields(Storage.BlobField.GENERATION));

    assertThat(blob.getGeneration()).isEqualTo(generation);
    assertThat(blob.getSize()).isNull();
    assertThat(standIn.requests()).last().asString().contains("fields=");
  }

  @Test
  void missingObjectIsA404WithGcsErrorBody() throws Exception {
    HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(standIn.endpoint()
        + "/storage/v1/b/" + BUCKET + "/o/no%2Fsuch.csv")).build(), HttpResponse.BodyHandlers.ofString());

    JsonNode error = JSON.readTree(response.body()).get("error");
    assertThat(response.statusCode()).isEqualTo(404);
    assertThat(error.get("code").asInt()).isEqualTo(404);
    assertThat(error.get("message").asText()).isEqualTo("No such object: " + BUCKET + "/no/such.csv");
    assertThat(error.get("errors").get(0).get("reason").asText()).isEqualTo("notFound");
  }

  @Test
  void rangedMediaGetIsA206WithContentRange() throws Exception {
    String name = folder() + "digits.txt";
    standIn.put(BUCKET, name, "0123456789".getBytes(StandardCharsets.UTF_8));
    String url = standIn.endpoint() + "/download/storage/v1/b/" + BUCKET + "/o/" + name.replace("/", "%2F")
        + "?alt=media";

    HttpResponse<String> middle = HTTP.send(HttpRequest.newBuilder(URI.create(url)).header("Range", "bytes=2-5")
        .build(), HttpResponse.BodyHandlers.ofString());
    HttpResponse<String> tail = HTTP.send(HttpRequest.newBuilder(URI.create(url)).header("Range", "bytes=7-")
        .build(), HttpResponse.BodyHandlers.ofString());

    assertThat(middle.statusCode()).isEqualTo(206);
    assertThat(middle.headers().firstValue("Content-Range")).hasValue("bytes 2-5/10");
    assertThat(middle.body()).isEqualTo("2345");
    assertThat(tail.body()).isEqualTo("789");
    assertThat(tail.headers().firstValue("Content-Range")).hasValue("bytes 7-9/10");
  }

  @Test
  void resumableSessionAnswersAStatusQueryWithThePersistedRange() throws Exception {
    String name = folder() + "resumable.bin";
    HttpResponse<String> start = HTTP.send(HttpRequest.newBuilder(URI.create(standIn.endpoint()
            + "/upload/storage/v1/b/" + BUCKET + "/o?uploadType=resumable&ifGenerationMatch=0"))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{\"name\":\"" + name + "\"}")).build(),
        HttpResponse.BodyHandlers.ofString());
    URI session = URI.create(start.headers().firstValue("Location").orElseThrow());

    HttpResponse<String> chunk = HTTP.send(HttpRequest.newBuilder(session).header("Content-Range", "bytes 0-3/*")
        .PUT(HttpRequest.BodyPublishers.ofString("abcd")).build(), HttpResponse.BodyHandlers.ofString());
    HttpResponse<String> status = HTTP.send(HttpRequest.newBuilder(session).header("Content-Range", "bytes */*")
        .PUT(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    HttpResponse<String> last = HTTP.send(HttpRequest.newBuilder(session).header("Content-Range", "bytes 4-5/6")
        .PUT(HttpRequest.BodyPublishers.ofString("ef")).build(), HttpResponse.BodyHandlers.ofString());

    assertThat(chunk.statusCode()).isEqualTo(308);
    assertThat(status.statusCode()).isEqualTo(308);
    assertThat(status.headers().firstValue("Range")).hasValue("bytes=0-3");
    assertThat(last.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(last.body()).get("size").asText()).isEqualTo("6");
    assertThat(Files.readString(standIn.file(BUCKET, name))).isEqualTo("abcdef");
  }
}
