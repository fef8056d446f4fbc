package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code kafka-client-metrics.sh} (KIP-714 client metrics subscriptions) against Brook, run as its
 * script runs it (a JVM of its own starting the tool's main class): a subscription created with
 * {@code --alter}, shown by {@code --describe} and {@code --list}, then deleted.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ClientMetricsCliCompatTest {

    private static final String CLIENT_METRICS = org.apache.kafka.tools.ClientMetricsCommand.class.getName();

    @RegisterExtension
    static final BrookCluster cluster = BrookCluster.perClass();

    private record Run(int exit, String output) { }

    private static Run tool(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
        cmd.add(CLIENT_METRICS);
        cmd.add("--bootstrap-server");
        cmd.add(cluster.bootstrapServers());
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("kafka-client-metrics.sh exits").isTrue();
        return new Run(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }

    @Test
    void createDescribeListAndDeleteASubscription() throws Exception {
        Run alter = tool("--alter", "--name", "basic", "--metrics", "org.apache.kafka.producer.", "--interval", "1000");
        assertThat(alter.exit()).as(alter.output()).isZero();

        Run describe = tool("--describe", "--name", "basic");
        assertThat(describe.exit()).as(describe.output()).isZero();
        assertThat(describe.output()).contains("basic").contains("interval.ms=1000")
                .contains("metrics=org.apache.kafka.producer.");

        Run list = tool("--list");
        assertThat(list.exit()).as(list.output()).isZero();
        assertThat(list.output().lines()).contains("basic");

        Run bad = tool("--alter", "--name", "basic", "--interval", "10");
        assertThat(bad.exit()).as(bad.output()).isNotZero();
        assertThat(bad.output()).contains("interval");

        Run delete = tool("--delete", "--name", "basic");
        assertThat(delete.exit()).as(delete.output()).isZero();
        Run after = tool("--list");
        assertThat(after.output().lines()).doesNotContain("basic");
    }
}
