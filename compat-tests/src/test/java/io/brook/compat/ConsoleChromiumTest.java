package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.Brook;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console at {@code /} of the HTTP admin listener, loaded by headless Chromium against a
 * broker with a known topic and a group behind it: the page shows the topic's end offsets and the
 * group's lag. Without {@code chromium} on the PATH (Debian's package, which {@code .ci/run}
 * installs) it is skipped, or fails with {@code CI=true}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ConsoleChromiumTest {

    @TempDir
    Path profile;

    @Test
    void showsTopicsAndTheLagOfGroups() throws Exception {
        Path chromium = Tools.onPath("chromium");
        Tools.require(chromium != null, "chromium (Debian's package) is not on the PATH");
        try (Brook brook = Brook.builder().port(0).config(Map.of("brook.http.listener", "127.0.0.1:0",
                "group.initial.rebalance.delay.ms", "0")).start()) {
            String bootstrap = brook.bootstrapServers();
            String topic = Groups.unique("console");
            String group = Groups.unique("console-group");
            Groups.createTopic(bootstrap, topic, 2);
            Groups.produce(bootstrap, topic, 2, 4);
            try (KafkaConsumer<String, String> consumer = Groups.consumer(Groups.consumerProps(bootstrap, group))) {
                consumer.subscribe(List.of(topic));
                int[] read = {0};
                Groups.pollUntil(Duration.ofSeconds(30), () -> read[0] + " of 8 records",
                        () -> read[0] += consumer.poll(Duration.ofMillis(200)).count(), () -> read[0] >= 8);
                consumer.commitSync();
            }
            Groups.produce(bootstrap, topic, 2, 4, 3); // three records behind on each partition

            Process p = new ProcessBuilder(chromium.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                    "--user-data-dir=" + profile, "--virtual-time-budget=10000", "--dump-dom",
                    "http://127.0.0.1:" + brook.httpPort() + "/")
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            String dom = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();

            assertThat(dom).contains("<tr data-topic=\"" + topic + "\"><td>" + topic + "</td><td class=\"num\">2</td>");
            assertThat(dom).contains("<td class=\"num\">7, 7</td>"); // end offsets of both partitions
            String lagRow = "<tr data-group=\"" + group + "\"><td>" + group + "</td><td>" + topic
                    + "</td><td class=\"num\">0</td><td class=\"num lagging\">3</td>";
            assertThat(dom).contains(lagRow);
            assertThat(dom).contains(">running<");

            // the picture the README shows (target/console.png)
            Process shot = new ProcessBuilder(chromium.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                    "--user-data-dir=" + profile, "--virtual-time-budget=10000", "--hide-scrollbars",
                    "--window-size=1280,760", "--screenshot=" + Path.of("target", "console.png").toAbsolutePath(),
                    "http://127.0.0.1:" + brook.httpPort() + "/")
                    .redirectError(ProcessBuilder.Redirect.DISCARD).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            assertThat(shot.waitFor(60, TimeUnit.SECONDS)).isTrue();
        }
    }
}
