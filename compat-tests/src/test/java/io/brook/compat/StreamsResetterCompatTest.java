package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code kafka-streams-application-reset.sh} ({@code StreamsResetter}, in a JVM of its own as its
 * script runs it), which Kafka Streams users run before reprocessing: it refuses while the
 * application's group has members, {@code --force} removes them, {@code --dry-run} changes
 * nothing, and a reset moves the group's offsets of the input topics and deletes the topics Kafka
 * Streams made for the application ({@code <application.id>-...-changelog} and
 * {@code -repartition}), leaving every other topic alone. Runs against Kafka too
 * ({@link BrookCluster}).
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class StreamsResetterCompatTest {

    private static final String RESETTER = "org.apache.kafka.tools.StreamsResetter";

    @RegisterExtension
    static final BrookCluster cluster = BrookCluster.perClass();

    private static CliToolsCompatTest.Run reset(String... args) throws Exception {
        List<String> all = new java.util.ArrayList<>(List.of("--bootstrap-server", cluster.bootstrapServers()));
        all.addAll(List.of(args));
        return CliToolsCompatTest.tool(RESETTER, all.toArray(String[]::new));
    }

    private static CliToolsCompatTest.Run resetOk(String... args) throws Exception {
        CliToolsCompatTest.Run r = reset(args);
        assertThat(r.exit()).as("StreamsResetter %s: %s", String.join(" ", args), r.output()).isZero();
        return r;
    }

    /** An application's topics: two partitions of input with five records each, its own topics, an output topic. */
    private record App(String id, String input, String changelog, String repartition, String output) {
        static App create(String bootstrap) throws Exception {
            String id = Groups.unique("reset-app");
            App app = new App(id, Groups.unique("reset-input"), id + "-counts-changelog",
                    id + "-KSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition", Groups.unique("reset-output"));
            Groups.createTopic(bootstrap, app.input, 2);
            for (String t : List.of(app.changelog, app.repartition, app.output)) {
                Groups.createTopic(bootstrap, t, 1);
            }
            Groups.produce(bootstrap, app.input, 2, 5);
            return app;
        }

        /** A consumer of the application's group, as the application's own would be. */
        KafkaConsumer<String, String> consumer(String bootstrap) {
            Properties props = Groups.consumerProps(bootstrap, id);
            props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
            return Groups.consumer(props);
        }

        /** Commits offset 5 (the end) in both input partitions, as the application would after reading it all. */
        void commitEnd(String bootstrap) {
            try (KafkaConsumer<String, String> c = consumer(bootstrap)) {
                c.commitSync(Map.of(new TopicPartition(input, 0), new OffsetAndMetadata(5),
                        new TopicPartition(input, 1), new OffsetAndMetadata(5)));
            }
        }
    }

    @Test
    void dryRunThenResetToAnOffsetThenToTheEarliestDeletingTheApplicationsOwnTopics() throws Exception {
        String bootstrap = cluster.bootstrapServers();
        App app = App.create(bootstrap);
        app.commitEnd(bootstrap);
        try (Admin admin = Groups.admin(bootstrap)) {
            CliToolsCompatTest.Run dry = resetOk("--application-id", app.id, "--input-topics", app.input,
                    "--to-offset", "2", "--dry-run");
            assertThat(dry.output()).contains(app.changelog, app.repartition).doesNotContain(app.output);
            assertThat(Groups.committed(admin, app.id, app.input)).isEqualTo(Map.of(0, 5L, 1, 5L));
            assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).contains(app.changelog, app.repartition);

            resetOk("--application-id", app.id, "--input-topics", app.input, "--to-offset", "2");
            assertThat(Groups.committed(admin, app.id, app.input)).isEqualTo(Map.of(0, 2L, 1, 2L));
            Groups.awaitTopicGone(admin, app.changelog);
            Groups.awaitTopicGone(admin, app.repartition);
            assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).contains(app.input, app.output);

            resetOk("--application-id", app.id, "--input-topics", app.input);
            assertThat(Groups.committed(admin, app.id, app.input)).isEqualTo(Map.of(0, 0L, 1, 0L));
        }
    }

    @Test
    void refusesWhileTheGroupHasAMemberAndForceRemovesIt() throws Exception {
        String bootstrap = cluster.bootstrapServers();
        App app = App.create(bootstrap);
        app.commitEnd(bootstrap);
        try (Admin admin = Groups.admin(bootstrap);
             KafkaConsumer<String, String> member = app.consumer(bootstrap)) {
            member.subscribe(List.of(app.input));
            // joined once, then left alone: its heartbeat thread keeps it in the group, and without
            // another poll it never rejoins after --force removed it
            Groups.pollUntil(Duration.ofSeconds(60), () -> "the member's assignment", () -> member.poll(Duration.ofMillis(100)),
                    () -> member.assignment().size() == 2);
            assertThat(admin.describeConsumerGroups(List.of(app.id)).all().get(30, TimeUnit.SECONDS).get(app.id).groupState())
                    .isEqualTo(GroupState.STABLE);

            CliToolsCompatTest.Run refused = reset("--application-id", app.id, "--input-topics", app.input);
            assertThat(refused.exit()).as(refused.output()).isNotZero();
            assertThat(refused.output()).contains("still active");
            assertThat(Groups.committed(admin, app.id, app.input)).isEqualTo(Map.of(0, 5L, 1, 5L));
            assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).contains(app.changelog);

            resetOk("--application-id", app.id, "--input-topics", app.input, "--force");
            var group = admin.describeConsumerGroups(List.of(app.id)).all().get(30, TimeUnit.SECONDS).get(app.id);
            assertThat(group.members()).isEmpty();
            assertThat(Groups.committed(admin, app.id, app.input)).isEqualTo(Map.of(0, 0L, 1, 0L));
            Groups.awaitTopicGone(admin, app.changelog);
            Set<String> left = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            assertThat(left).contains(app.input, app.output).doesNotContain(app.repartition);
        }
    }
}
