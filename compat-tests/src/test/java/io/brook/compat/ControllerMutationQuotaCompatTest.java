package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.Await;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.CreatePartitionsOptions;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.DeleteTopicsOptions;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.errors.ThrottlingQuotaExceededException;
import org.apache.kafka.tools.ConfigCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code controller_mutation_rate} (KIP-599) set with {@code kafka-configs.sh --entity-type
 * clients} and felt by the stock Admin client: once a {@code validate_only} creation (charged
 * as a creation is, in Kafka's KRaft controller) takes the client's token bucket below zero,
 * creating a topic, deleting one, adding partitions and validating a creation are all refused
 * with THROTTLING_QUOTA_EXCEEDED and a throttle time (the Admin's
 * {@code retryOnQuotaViolation(false)}). Against Kafka the quota reaches the controller a moment
 * after kafka-configs.sh returns, hence the wait for it to bite.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ControllerMutationQuotaCompatTest {

    @RegisterExtension
    static final BrookCluster cluster = BrookCluster.perClass();

    private static Admin admin(String clientId) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, clientId);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
        return Admin.create(p);
    }

    private static Tools.Result configs(String... args) throws Exception {
        String[] all = new String[args.length + 2];
        all[0] = "--bootstrap-server";
        all[1] = cluster.bootstrapServers();
        System.arraycopy(args, 0, all, 2, args.length);
        Tools.Result r = Tools.kafkaTool(ConfigCommand.class, all);
        assertThat(r.exit()).as("kafka-configs %s: %s%s", List.of(args), r.out(), r.err()).isZero();
        return r;
    }

    /** The exception a refused topic's future failed with, or null when it succeeded. */
    private static ThrottlingQuotaExceededException refusal(KafkaFuture<?> future) throws Exception {
        try {
            future.get(30, TimeUnit.SECONDS);
            return null;
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(ThrottlingQuotaExceededException.class);
            return (ThrottlingQuotaExceededException) e.getCause();
        }
    }

    private static void assertRefused(KafkaFuture<?> future) throws Exception {
        ThrottlingQuotaExceededException e = refusal(future);
        assertThat(e).as("refused").isNotNull();
        assertThat(e).hasMessage("The throttling quota has been exceeded.");
        assertThat(e.throttleTimeMs()).isPositive();
    }

    private static CreateTopicsOptions noRetry() {
        return new CreateTopicsOptions().retryOnQuotaViolation(false);
    }

    @Test
    void kafkaConfigsSetsAMutationRateAndTopicsPastTheBurstAreRefused() throws Exception {
        String client = Groups.unique("cli-mutator");
        // 1 partition mutation a second: a burst of 11 with the default 11 windows of 1 s
        configs("--alter", "--entity-type", "clients", "--entity-name", client, "--add-config",
                "controller_mutation_rate=1");
        assertThat(configs("--describe", "--entity-type", "clients", "--entity-name", client).out())
                .contains("controller_mutation_rate=1.0");

        String target = Groups.unique("mutation-target");
        try (Admin other = admin(Groups.unique("cli-free"))) { // another client id: no quota
            other.createTopics(List.of(new NewTopic(target, 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }

        // validating a topic of 30 partitions takes the bucket to -19 at most (19 s to repay): the
        // validation is charged as a creation is, so the next creation is refused
        try (Admin admin = admin(client)) {
            Await.until("the quota refuses a topic", Duration.ofSeconds(60), () -> {
                try {
                    admin.createTopics(List.of(new NewTopic(Groups.unique("mutation-big"), 30, (short) 1)),
                            noRetry().validateOnly(true)).all().get(30, TimeUnit.SECONDS);
                    return refusal(admin.createTopics(List.of(new NewTopic(Groups.unique("mutation-small"), 1,
                            (short) 1)), noRetry()).all()) != null;
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            });
        }
        // each on a connection of its own: the throttled one is held (KIP-219)
        try (Admin admin = admin(client)) {
            assertRefused(admin.createTopics(List.of(new NewTopic(Groups.unique("mutation-check"), 1, (short) 1)),
                    noRetry().validateOnly(true)).all());
        }
        try (Admin admin = admin(client)) {
            assertRefused(admin.deleteTopics(List.of(target), new DeleteTopicsOptions().retryOnQuotaViolation(false))
                    .all());
        }
        try (Admin admin = admin(client)) {
            assertRefused(admin.createPartitions(Map.of(target, NewPartitions.increaseTo(3)),
                    new CreatePartitionsOptions().retryOnQuotaViolation(false)).all());
        }
        try (Admin other = admin(Groups.unique("cli-free"))) {
            assertThat(other.describeTopics(List.of(target)).allTopicNames().get(30, TimeUnit.SECONDS)
                    .get(target).partitions()).as("not grown").hasSize(2);
            other.deleteTopics(List.of(target)).all().get(30, TimeUnit.SECONDS);
        }
        configs("--alter", "--entity-type", "clients", "--entity-name", client, "--delete-config",
                "controller_mutation_rate");
    }
}
