package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/brook}, the README's first command, as a newcomer runs it after the README's second
 * ({@code mvn -B verify}, which has just packaged the server and rewritten every module's jar): it
 * makes its class-data-sharing archive for the Java it runs on and then starts the broker without
 * a word from the JVM (no archive refused, no native-access or {@code sun.misc.Unsafe} warning),
 * on this build's Java and on Java 25 where it is installed. {@code BROOK_SKIP_BUILD=1}: the
 * launcher runs the jar this build made, never Maven inside Maven.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LauncherCompatTest {
    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
    private static final Path JAVA_25 = Path.of("/usr/lib/jvm/temurin-25-jdk-amd64");

    @TempDir
    Path tmp;

    @BeforeAll
    static void theServerJarThisBuildMade() throws IOException {
        Path target = ROOT.resolve("server/target");
        Path built;
        try (Stream<Path> jars = Files.list(target)) {
            built = jars.filter(p -> p.getFileName().toString().matches("brook-server-.+\\.jar")).findFirst()
                    .orElseThrow(() -> new IllegalStateException("no brook-server-*.jar in " + target
                            + ": compat-tests run after the server module is packaged"));
        }
        // what bin/brook copies after its own build
        Files.copy(built, target.resolve("brook-server.jar"), StandardCopyOption.REPLACE_EXISTING);
    }

    private static ProcessBuilder launcher(Path javaHome, Path output, String... args) {
        List<String> command = new ArrayList<>(List.of(ROOT.resolve("bin/brook").toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).directory(ROOT.toFile()).redirectErrorStream(true)
                .redirectOutput(output.toFile());
        pb.environment().put("JAVA_HOME", javaHome.toString());
        pb.environment().put("BROOK_SKIP_BUILD", "1");
        return pb;
    }

    private String version(Path javaHome, String name) throws Exception {
        Path out = tmp.resolve(name);
        Process p = launcher(javaHome, out, "--version").start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("bin/brook --version ends").isTrue();
        assertThat(p.exitValue()).as(Files.readString(out)).isZero();
        return Files.readString(out, StandardCharsets.UTF_8);
    }

    /** Starts the broker, waits until it serves, stops it (SIGTERM) and returns all it printed. */
    private String serve(Path javaHome) throws Exception {
        Path out = tmp.resolve("serve.log");
        Process p = launcher(javaHome, out, "--port", "0", "--data-dir", tmp.resolve("data").toString(),
                "--override", "brook.http.listener=127.0.0.1:0").start();
        try {
            Groups.await(Duration.ofSeconds(60), "the broker to serve", () -> {
                assertThat(p.isAlive()).as("bin/brook alive").isTrue();
                try {
                    return Files.readString(out).contains("Brook serving ");
                } catch (IOException e) {
                    return false;
                }
            });
        } finally {
            p.destroy();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
        return Files.readString(out, StandardCharsets.UTF_8);
    }

    /** Marks the modules' jars of the server's class path as just written, as a {@code mvn install} would. */
    private static void rebuildTheModulesJars() throws IOException {
        String classpath = Files.readString(ROOT.resolve("server/target/runtime-classpath.txt"));
        FileTime now = FileTime.fromMillis(System.currentTimeMillis() + 1_000);
        int touched = 0;
        for (String entry : classpath.strip().split(":")) {
            if (entry.startsWith(ROOT.toString()) && Path.of(entry).getFileName().toString().startsWith("brook-")) {
                Files.setLastModifiedTime(Path.of(entry), now);
                touched++;
            }
        }
        assertThat(touched).as("module jars of this checkout on the server's class path").isPositive();
    }

    private void startsWithoutAWordFromTheJvm(Path javaHome) throws Exception {
        // the first run may make the archive; jars rewritten since call for a new one
        version(javaHome, "first.log");
        rebuildTheModulesJars();
        assertThat(version(javaHome, "second.log")).matches("Brook \\S+\\n");
        String served = serve(javaHome);
        assertThat(served).contains("Brook serving ").doesNotContain("WARNING").doesNotContain("[warning]")
                .doesNotContain("[error]");
    }

    @Test
    void startsQuietlyOnThisBuildsJava() throws Exception {
        startsWithoutAWordFromTheJvm(Path.of(System.getProperty("java.home")));
    }

    @Test
    void startsQuietlyOnJava25() throws Exception {
        assumeTrue(Files.isExecutable(JAVA_25.resolve("bin/java")), "no Java 25 at " + JAVA_25);
        startsWithoutAWordFromTheJvm(JAVA_25);
    }
}
