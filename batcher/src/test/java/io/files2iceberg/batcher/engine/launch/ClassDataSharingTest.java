package io.files2iceberg.batcher.engine.launch;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Class-data sharing as the local launcher starts its JVMs: real JVMs on a folder of classes,
 * the archive read back by the JVM's own class-loading log.
 */
class ClassDataSharingTest {
  @TempDir Path dir;

  /** What the JVMs run: a class of their own, in a folder of classes. */
  public static final class Hello {
    public static void main(String[] args) throws InterruptedException {
      System.out.println("hello " + List.of(args));
      if (List.of(args).contains("serve")) {
        // As the listener runs: until it is stopped.
        Thread.sleep(60_000);
      }
    }
  }

  private Path classes() throws IOException {
    Path classes = dir.resolve("classes");
    Path file = Path.of(Hello.class.getProtectionDomain().getCodeSource().getLocation().getPath())
        .resolve(Hello.class.getName().replace('.', '/') + ".class");
    Path copy = classes.resolve(Hello.class.getName().replace('.', '/') + ".class");
    Files.createDirectories(copy.getParent());
    Files.copy(file, copy);
    Files.writeString(Files.createDirectories(classes.resolve("META-INF/micronaut/service")).resolve("bean"), "");
    return classes;
  }

  private static List<String> command(Path classes, String... jvmOptions) {
    return command(classes.toString(), "a", jvmOptions);
  }

  private static List<String> command(String classpath, String argument, String... jvmOptions) {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    command.addAll(List.of(jvmOptions));
    command.addAll(List.of("-cp", classpath, Hello.class.getName(), argument));
    return command;
  }

  /** Runs a start's command to its end and waits for what follows its exit; its stdout. */
  private static String run(ClassDataSharing.Start start) throws Exception {
    Path out = Files.createTempFile("jvm", ".out");
    Process process = new ProcessBuilder(start.command()).redirectErrorStream(true).redirectOutput(out.toFile()).start();
    var published = start.whenExited(process);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    // Publication (the rename, the lease, the pruning) runs on the exit's completion.
    published.get(30, TimeUnit.SECONDS);
    return Files.readString(out, StandardCharsets.UTF_8);
  }

  private List<Path> cached(String suffix) throws IOException {
    try (Stream<Path> files = Files.list(dir.resolve("cache/jvm"))) {
      return files.filter(f -> f.getFileName().toString().endsWith(suffix)).sorted().toList();
    }
  }

  @Test
  void theFirstJvmWritesTheArchiveAsItExitsAndTheNextMapsItsClassesFromIt() throws Exception {
    ClassDataSharing sharing = ClassDataSharing.in(dir.resolve("cache"));
    Path classes = classes();

    ClassDataSharing.Start first = sharing.start(command(classes));

    assertThat(first.command()).anyMatch(o -> o.startsWith("-XX:ArchiveClassesAtExit="))
        .contains(ClassDataSharing.QUIET).noneMatch(o -> o.startsWith("-XX:SharedArchiveFile="));
    // The folder runs from a jar of it: the JVM archives classes of jars only.
    String classpath = first.command().get(first.command().indexOf("-cp") + 1);
    assertThat(classpath).endsWith(".jar").startsWith(dir.resolve("cache/jvm/classes-").toString());
    // A folder is found in the jar as in the folder: Micronaut lists META-INF/micronaut/<service>/.
    try (var jar = new java.net.URLClassLoader(new java.net.URL[] {Path.of(classpath).toUri().toURL()}, null)) {
      assertThat(jar.getResource("META-INF/micronaut/service")).isNotNull();
      assertThat(jar.getResource("META-INF/micronaut/service/bean")).isNotNull();
    }
    // The JVM's own messages about archives stay off its output (sql --json prints rows there).
    assertThat(run(first)).isEqualTo("hello [a]\n");
    Path archive = first.writing().orElseThrow().archive();
    assertThat(archive).isRegularFile();
    assertThat(cached(".tmp")).isEmpty();
    assertThat(cached(".writing")).isEmpty();

    ClassDataSharing.Start second = sharing.start(command(classes, "-Xlog:class+load=info"));

    assertThat(second.command()).contains("-XX:SharedArchiveFile=" + archive, ClassDataSharing.QUIET)
        .noneMatch(o -> o.startsWith("-XX:ArchiveClassesAtExit="));
    assertThat(second.writing()).isEmpty();
    String loaded = run(second);
    assertThat(loaded).contains("hello [a]");
    assertThat(loaded.lines().filter(line -> line.contains(" " + Hello.class.getName() + " "))).singleElement()
        .asString().contains("shared objects file (top)");
  }

  @Test
  void oneJvmAtATimeWritesAnArchiveAndAKilledOneLeavesNone() throws Exception {
    ClassDataSharing sharing = ClassDataSharing.in(dir.resolve("cache"));
    Path classes = classes();
    ClassDataSharing.Start writer = sharing.start(command(classes));

    ClassDataSharing.Start beside = sharing.start(command(classes));

    assertThat(writer.writing()).isPresent();
    assertThat(beside.writing()).isEmpty();
    assertThat(beside.command()).noneMatch(o -> o.startsWith("-XX:")).doesNotContain(classes.toString());

    // Killed as it wrote: nothing half-written is kept, and the next JVM writes the archive.
    Process process = new ProcessBuilder(writer.command()).start();
    var finished = writer.whenExited(process);
    process.destroyForcibly().waitFor();
    finished.get(30, TimeUnit.SECONDS);

    assertThat(writer.writing().orElseThrow().archive()).doesNotExist();
    assertThat(cached(".writing")).isEmpty();
    assertThat(cached(".tmp")).isEmpty();
    assertThat(sharing.start(command(classes)).writing()).isPresent();
  }

  @Test
  void aLeaseWhoseWriterIsGoneIsTakenOverAndOneNamingNoWriterYetHoldsForAMinute() throws Exception {
    ClassDataSharing sharing = ClassDataSharing.in(dir.resolve("cache"));
    Path classes = classes();
    ClassDataSharing.Writing starting = sharing.start(command(classes)).writing().orElseThrow();
    assertThat(sharing.start(command(classes)).writing()).isEmpty();
    Files.setLastModifiedTime(starting.lease(), FileTime.from(Instant.now().minus(ClassDataSharing.WRITE_LEASE).minusSeconds(5)));
    ClassDataSharing.Writing writer = sharing.start(command(classes)).writing().orElseThrow();

    // Its writer ran and exited while its batcher was gone: nobody saw the exit, nor cleared the lease.
    Process process = new ProcessBuilder("sleep", "60").start();
    writer.heldBy(process.toHandle());
    assertThat(sharing.start(command(classes)).writing()).isEmpty();
    process.destroy();
    process.waitFor();
    Files.writeString(writer.temporary(), "what it wrote");

    ClassDataSharing.Writing next = sharing.start(command(classes)).writing().orElseThrow();

    assertThat(writer.temporary()).doesNotExist();
    assertThat(next.lease()).isEqualTo(writer.lease()).isRegularFile();
    assertThat(next.archive()).doesNotExist();
  }

  @Test
  void aRebuiltFolderOfClassesGetsAJarAndAnArchiveOfItsOwnAndTheNewestAreKept() throws Exception {
    ClassDataSharing sharing = ClassDataSharing.in(dir.resolve("cache"));
    Path classes = classes();
    List<String> archives = new ArrayList<>();
    for (int build = 0; build < ClassDataSharing.KEPT + 2; build++) {
      Files.writeString(classes.resolve("build.txt"), "build " + build);
      Files.setLastModifiedTime(classes.resolve("build.txt"), FileTime.fromMillis(1_000_000L * (build + 1)));
      ClassDataSharing.Start start = sharing.start(command(classes));
      run(start);
      archives.add(start.writing().orElseThrow().archive().getFileName().toString());
    }

    assertThat(archives).doesNotHaveDuplicates();
    assertThat(cached(".jsa")).hasSize(ClassDataSharing.KEPT)
        .extracting(p -> p.getFileName().toString()).containsExactlyInAnyOrderElementsOf(archives.subList(2, ClassDataSharing.KEPT + 2));
    assertThat(cached(".jar")).hasSize(ClassDataSharing.KEPT);
  }

  @Test
  void aJvmStoppedWithSigtermAsTheListenerIsKeepsItsArchiveAndAFolderOfJarsRunsAsItsJarsInOrder() throws Exception {
    ClassDataSharing sharing = ClassDataSharing.in(dir.resolve("cache"));
    Path classes = classes();
    Path lib = Files.createDirectories(dir.resolve("lib"));
    for (String name : List.of("b.jar", "a.jar", "notes.txt")) {
      try (var jar = new java.util.jar.JarOutputStream(Files.newOutputStream(lib.resolve(name)))) {
        jar.putNextEntry(new java.util.jar.JarEntry(name + ".txt"));
      }
    }
    ClassDataSharing.Start start = sharing.start(command(classes + ":" + lib + "/*", "serve"));

    String classpath = start.command().get(start.command().indexOf("-cp") + 1);
    assertThat(classpath.split(":")).hasSize(3).endsWith(lib.resolve("a.jar").toString(), lib.resolve("b.jar").toString());
    Path out = Files.createTempFile("jvm", ".out");
    Process process = new ProcessBuilder(start.command()).redirectErrorStream(true).redirectOutput(out.toFile()).start();
    var published = start.whenExited(process);
    for (int i = 0; i < 400 && !Files.readString(out).contains("hello"); i++) {
      Thread.sleep(50);
    }
    process.destroy();
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).isEqualTo(143);
    published.get(30, TimeUnit.SECONDS);

    assertThat(start.writing().orElseThrow().archive()).isRegularFile();
    assertThat(sharing.start(command(classes + ":" + lib + "/*", "serve")).command())
        .contains("-XX:SharedArchiveFile=" + start.writing().orElseThrow().archive());
  }

  @Test
  void readOnlySharingMapsAnArchiveButNeverWritesOne() throws Exception {
    Path classes = classes();
    Map<String, String> env = Map.of(ClassDataSharing.CACHE_ENV, dir.resolve("cache").toString());

    ClassDataSharing.Start demo = ClassDataSharing.readOnlyWhile(() -> ClassDataSharing.fromEnvironment(env)
        .start(command(classes)));
    ClassDataSharing.Start named = ClassDataSharing.fromEnvironment(Map.of(ClassDataSharing.CACHE_ENV,
        dir.resolve("cache").toString(), ClassDataSharing.SWITCH_ENV, "read-only")).start(command(classes));

    for (ClassDataSharing.Start start : List.of(demo, named)) {
      assertThat(start.writing()).isEmpty();
      assertThat(start.command()).noneMatch(o -> o.startsWith("-XX:"));
    }
    assertThat(System.getProperty(ClassDataSharing.READ_ONLY_PROPERTY)).isNull();
    ClassDataSharing.Start writer = ClassDataSharing.fromEnvironment(env).start(command(classes));
    run(writer);
    Path archive = writer.writing().orElseThrow().archive();
    assertThat(ClassDataSharing.readOnlyWhile(() -> ClassDataSharing.fromEnvironment(env).start(command(classes)))
        .command()).contains("-XX:SharedArchiveFile=" + archive);
  }

  @Test
  void offOrWithoutAClasspathTheCommandIsAsGivenAndTheEnvironmentNamesTheCache() throws Exception {
    Path classes = classes();
    List<String> command = command(classes);

    assertThat(ClassDataSharing.off().start(command).command()).isEqualTo(command);
    assertThat(ClassDataSharing.fromEnvironment(Map.of(ClassDataSharing.SWITCH_ENV, "OFF")).start(command).command())
        .isEqualTo(command);
    List<String> noClasspath = List.of("java", "-version");
    assertThat(ClassDataSharing.in(dir.resolve("cache")).start(noClasspath).command()).isEqualTo(noClasspath);

    ClassDataSharing named = ClassDataSharing.fromEnvironment(Map.of(ClassDataSharing.CACHE_ENV,
        dir.resolve("named").toString(), "XDG_CACHE_HOME", dir.resolve("xdg").toString()));
    assertThat(named.start(command).command().get(command.indexOf("-cp") + 3))
        .startsWith(dir.resolve("named/jvm").toString());
    ClassDataSharing xdg = ClassDataSharing.fromEnvironment(Map.of("XDG_CACHE_HOME", dir.resolve("xdg").toString()));
    assertThat(xdg.start(command).command().get(command.indexOf("-cp") + 3))
        .startsWith(dir.resolve("xdg/files2iceberg/jvm").toString());
    // A cache that cannot be written: the JVM runs as it would without one.
    Path file = Files.writeString(dir.resolve("not-a-folder"), "x");
    assertThat(ClassDataSharing.in(file).start(command)).isEqualTo(new ClassDataSharing.Start(command, Optional.empty()));
  }
}
