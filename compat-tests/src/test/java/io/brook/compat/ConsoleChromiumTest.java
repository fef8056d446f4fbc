package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.Brook;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console at {@code /} of the HTTP admin listener, loaded by headless Chromium against a
 * broker with a known topic and a group behind it: the page shows the topic's end offsets and the
 * configs set on it, the group's lag, and the members of a second, live group with their client
 * id, host and assignment. Without {@code chromium} on the PATH (Debian's package, which {@code .ci/run}
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
            try (Admin admin = Groups.admin(bootstrap)) {
                admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1).configs(Map.of(
                        "retention.ms", "3600000", "max.message.bytes", "200000")))).all().get(30, TimeUnit.SECONDS);
                Groups.awaitTopic(admin, topic, 2);
            }
            Groups.produce(bootstrap, topic, 2, 4);
            try (KafkaConsumer<String, String> consumer = Groups.consumer(Groups.consumerProps(bootstrap, group))) {
                consumer.subscribe(List.of(topic));
                int[] read = {0};
                Groups.pollUntil(Duration.ofSeconds(30), () -> read[0] + " of 8 records",
                        () -> read[0] += consumer.poll(Duration.ofMillis(200)).count(), () -> read[0] >= 8);
                consumer.commitSync();
            }
            Groups.produce(bootstrap, topic, 2, 4, 3); // three records behind on each partition

            // a live member of another group, which commits nothing (the lag above stays as it is)
            String liveGroup = Groups.unique("console-live");
            Properties props = Groups.consumerProps(bootstrap, liveGroup);
            props.put(ConsumerConfig.CLIENT_ID_CONFIG, "console-client");
            props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
            try (KafkaConsumer<String, String> live = Groups.consumer(props)) {
                live.subscribe(List.of(topic));
                Groups.pollUntil(Duration.ofSeconds(30), () -> "an assignment of both partitions",
                        () -> live.poll(Duration.ofMillis(200)), () -> live.assignment().size() == 2);
                String memberId = live.groupMetadata().memberId();
                String members = consoleDom(chromium, brook);
                assertThat(members).contains("<tr data-member=\"" + memberId + "\"><td>" + liveGroup + "</td><td>" + memberId
                        + "</td><td>console-client</td><td>");
                assertThat(members).containsPattern("<td>console-client</td><td>/?127\\.0\\.0\\.1</td><td>" + topic
                        + ": 0, 1</td></tr>");
                assertThat(members).contains("<td class=\"configs\">max.message.bytes=200000, retention.ms=3600000</td>");

                // the picture the README shows (target/console.png, copied to docs/console.png), with the member
                Process shot = new ProcessBuilder(chromium.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                        "--user-data-dir=" + profile, "--virtual-time-budget=10000", "--hide-scrollbars",
                        "--window-size=1280,1000", "--screenshot=" + Path.of("target", "console.png").toAbsolutePath(),
                        "http://127.0.0.1:" + brook.httpPort() + "/")
                        .redirectError(ProcessBuilder.Redirect.DISCARD).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .start();
                assertThat(shot.waitFor(60, TimeUnit.SECONDS)).isTrue();
            }

            String dom = consoleDom(chromium, brook);

            assertThat(dom).contains("<tr data-topic=\"" + topic + "\"><td>" + topic + "</td><td class=\"num\">2</td>");
            assertThat(dom).contains("<td class=\"num\">7, 7</td>"); // end offsets of both partitions
            String lagRow = "<tr data-group=\"" + group + "\"><td>" + group + "</td><td>" + topic
                    + "</td><td class=\"num\">0</td><td class=\"num lagging\">3</td>";
            assertThat(dom).contains(lagRow);
            assertThat(dom).contains(">running<");
        }
    }

    private String consoleDom(Path chromium, Brook brook) throws Exception {
        Process p = new ProcessBuilder(chromium.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--user-data-dir=" + profile, "--virtual-time-budget=10000", "--dump-dom",
                "http://127.0.0.1:" + brook.httpPort() + "/")
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String dom = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return dom;
    }
}
