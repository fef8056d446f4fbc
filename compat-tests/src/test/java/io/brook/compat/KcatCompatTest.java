package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * kcat (librdkafka) against Brook: metadata, produce with every codec, consume from the
 * beginning. librdkafka uses older, non-flexible versions (ListOffsets v2, Produce v7, Fetch v11
 * with librdkafka 2.0) and checks the advertised minimums (old librdkafka enables compression
 * only when Produce v0 is advertised). Skipped where kcat is not installed, except in CI
 * ({@link Tools#require}).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KcatCompatTest {

    private static BrookCluster cluster;

    @BeforeAll
    static void start() {
        Tools.require(Tools.onPath("kcat") != null, "kcat");
        cluster = new BrookCluster();
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static Result run(String stdin, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Tools.onPath("kcat").toString());
        cmd.add("-b");
        cmd.add(cluster.bootstrapServers());
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).start();
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(p.getInputStream()));
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(p.getErrorStream()));
        if (stdin != null) {
            p.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
        }
        p.getOutputStream().close();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("kcat " + args[0] + " did not finish");
        }
        return new Result(p.exitValue(), out.join(), err.join());
    }

    private static String read(InputStream in) {
        try {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "<" + e + ">";
        }
    }

    private record Result(int exit, String out, String err) {
    }

    @Test
    void producesWithEveryCodecAndConsumesFromTheBeginning() throws Exception {
        String topic = "kcat-" + UUID.randomUUID().toString().substring(0, 8);
        List<String> expected = new ArrayList<>();
        for (String codec : List.of("none", "gzip", "snappy", "lz4", "zstd")) {
            String lines = codec + "-1\n" + codec + "-2\n";
            Result produced = run(lines, "-P", "-t", topic, "-z", codec);
            assertThat(produced.exit()).as(produced.err()).isZero();
            assertThat(produced.err()).as(codec).doesNotContain("ERROR").doesNotContain("not compressing");
            expected.add(codec + "-1");
            expected.add(codec + "-2");
        }
        Result consumed = run(null, "-C", "-t", topic, "-o", "beginning", "-e", "-q");
        assertThat(consumed.exit()).as(consumed.err()).isZero();
        assertThat(consumed.out().lines().toList()).containsExactlyElementsOf(expected);
    }

    @Test
    void listsMetadataWithThisBrokerAsController() throws Exception {
        run("x\n", "-P", "-t", "kcat-meta");
        Result r = run(null, "-L", "-t", "kcat-meta");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("(controller)").contains("topic \"kcat-meta\" with 1 partitions");
    }

    @Test
    void queriesOffsetsByTime() throws Exception {
        String topic = "kcat-q-" + UUID.randomUUID().toString().substring(0, 8);
        assertThat(run("a\nb\nc\n", "-P", "-t", topic).exit()).isZero();
        Result r = run(null, "-Q", "-t", topic + ":0:-1");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("offset 3");
    }
}
