package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.testkit.MutableClock;
import io.brook.wire.message.ApiVersionsRequest;
import io.brook.wire.message.CreateTopicsRequest;
import io.brook.wire.message.CreateTopicsRequest.CreatableTopic;
import io.brook.wire.message.CreateTopicsResponse;
import io.brook.wire.message.CreateTopicsResponse.CreatableTopicResult;
import io.brook.wire.message.DeleteTopicsRequest;
import io.brook.wire.message.DeleteTopicsResponse;
import io.brook.wire.message.MetadataRequest;
import io.brook.wire.message.MetadataResponse;
import io.brook.wire.protocol.ApiKey;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.CreatePartitionsOptions;
import org.apache.kafka.clients.admin.CreatePartitionsResult;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.DeleteTopicsOptions;
import org.apache.kafka.clients.admin.DeleteTopicsResult;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.errors.ThrottlingQuotaExceededException;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code controller_mutation_rate} (KIP-599) end to end with the stock Admin client: topics
 * created, deleted or grown past the bucket's burst are refused with THROTTLING_QUOTA_EXCEEDED
 * and a throttle time when the client asks for it ({@code retryOnQuotaViolation(false)} in the
 * Admin's options), an Admin with default options retries until the bucket has refilled, and old request versions are
 * served in full and throttled, their connection held meanwhile.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ControllerMutationRateTest {

    private static Admin admin(Brook brook, String clientId) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, brook.bootstrapServers());
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, clientId);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
        return Admin.create(p);
    }

    /** The Admin's options that give up on THROTTLING_QUOTA_EXCEEDED instead of retrying. */
    private static CreateTopicsOptions noRetryCreate() {
        return new CreateTopicsOptions().retryOnQuotaViolation(false);
    }

    /** Sets {@code controller_mutation_rate} of user ANONYMOUS (PLAINTEXT) with {@code clientId}. */
    private static void limit(Brook brook, String clientId, double rate) throws Exception {
        Map<String, String> entity = new HashMap<>();
        entity.put(ClientQuotaEntity.USER, "ANONYMOUS");
        entity.put(ClientQuotaEntity.CLIENT_ID, clientId);
        try (Admin admin = admin(brook, "quota-admin")) {
            admin.alterClientQuotas(List.of(new ClientQuotaAlteration(new ClientQuotaEntity(entity),
                    List.of(new ClientQuotaAlteration.Op("controller_mutation_rate", rate))))).all()
                    .get(30, TimeUnit.SECONDS);
        }
    }

    private static List<NewTopic> topics(String prefix, int count, int partitions) {
        List<NewTopic> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            out.add(new NewTopic(prefix + i, partitions, (short) 1));
        }
        return out;
    }

    /** The throttle time of a refused topic's future (failing when it did not fail so). */
    private static int refused(KafkaFuture<?> future) {
        Throwable cause = null;
        try {
            future.get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            cause = e.getCause();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        assertThat(cause).isInstanceOf(ThrottlingQuotaExceededException.class)
                .hasMessage("The throttling quota has been exceeded.");
        return ((ThrottlingQuotaExceededException) cause).throttleTimeMs();
    }

    private static Map<String, Integer> partitionsOf(Admin admin, List<String> topics) throws Exception {
        Map<String, Integer> out = new HashMap<>();
        admin.describeTopics(topics).allTopicNames().get(30, TimeUnit.SECONDS)
                .forEach((name, d) -> out.put(name, d.partitions().size()));
        return out;
    }

    @Test
    void topicsPastTheBurstAreRefusedWithAThrottleTimeAndTheBucketRefillsAtTheRate() throws Exception {
        MutableClock clock = new MutableClock(1_000_000L);
        // a burst of 5/s × 2 windows × 1 s = 10 partition mutations
        try (Brook brook = Brook.builder().clock(clock).config("quota.window.num", "2").start()) {
            limit(brook, "strict", 5.0);
            try (Admin strict = admin(brook, "strict"); Admin other = admin(brook, "other")) {
                // 10 → 6 → 2 → -2 (done in full while the bucket is not below zero), then refused
                CreateTopicsResult created = strict.createTopics(topics("m", 5, 4), noRetryCreate());
                for (int i = 0; i < 3; i++) {
                    created.values().get("m" + i).get(30, TimeUnit.SECONDS);
                }
                assertThat(refused(created.values().get("m3"))).as("2 mutations at 5/s").isEqualTo(400);
                assertThat(refused(created.values().get("m4"))).isEqualTo(400);
                assertThat(other.listTopics().names().get(30, TimeUnit.SECONDS))
                        .contains("m0", "m1", "m2").doesNotContain("m3", "m4");
                other.createTopics(topics("free", 1, 20)).all().get(30, TimeUnit.SECONDS); // no quota for "other"

                // back to zero: m0 is deleted (-4), the others are refused and kept
                clock.advance(400);
                DeleteTopicsResult deleted = strict.deleteTopics(List.of("m0", "m1", "m2"),
                        new DeleteTopicsOptions().retryOnQuotaViolation(false));
                deleted.topicNameValues().get("m0").get(30, TimeUnit.SECONDS);
                assertThat(refused(deleted.topicNameValues().get("m1"))).isEqualTo(800);
                assertThat(refused(deleted.topicNameValues().get("m2"))).isEqualTo(800);
                assertThat(other.listTopics().names().get(30, TimeUnit.SECONDS))
                        .contains("m1", "m2").doesNotContain("m0");

                // likewise partitions added: m1 grows by 3 (-3), m2 is refused and keeps its 4
                clock.advance(800);
                Map<String, NewPartitions> grow = new LinkedHashMap<>();
                grow.put("m1", NewPartitions.increaseTo(7));
                grow.put("m2", NewPartitions.increaseTo(7));
                CreatePartitionsResult grown = strict.createPartitions(grow,
                        new CreatePartitionsOptions().retryOnQuotaViolation(false));
                grown.values().get("m1").get(30, TimeUnit.SECONDS);
                assertThat(refused(grown.values().get("m2"))).isEqualTo(600);
                assertThat(partitionsOf(other, List.of("m1", "m2"))).containsEntry("m1", 7).containsEntry("m2", 4);

                // validate_only is checked and charged as Kafka's controller charges it (another
                // connection of the same client id: the throttled one is not read for 600 ms)
                try (Admin again = admin(brook, "strict")) {
                    CreateTopicsOptions validateOnly = noRetryCreate().validateOnly(true);
                    assertThat(refused(again.createTopics(topics("v", 1, 1), validateOnly).values().get("v0")))
                            .isEqualTo(600);
                    clock.advance(600);
                    strict.createTopics(topics("v", 1, 4), validateOnly).all().get(30, TimeUnit.SECONDS);
                    assertThat(refused(strict.createTopics(topics("v", 1, 4), noRetryCreate()).values().get("v0")))
                            .isEqualTo(800);
                    assertThat(other.listTopics().names().get(30, TimeUnit.SECONDS)).doesNotContain("v0");
                }
            }
        }
    }

    @Test
    void anAdminWithDefaultSettingsRetriesUntilTheBucketHasRefilled() throws Exception {
        // the broker's own clock: the client's retries wait in real time
        try (Brook brook = Brook.builder().config("quota.window.num", "1").start()) {
            limit(brook, "patient", 5.0); // a burst of 5
            long start = System.nanoTime();
            try (Admin admin = admin(brook, "patient")) {
                admin.createTopics(topics("big", 1, 20)).all().get(30, TimeUnit.SECONDS); // 5 → -15: 3 s to repay
                int throttle = refused(admin.createTopics(topics("small", 1, 1), noRetryCreate()).values()
                        .get("small0"));
                assertThat(throttle).isBetween(1, 3000);

                admin.createTopics(topics("small", 1, 1)).all().get(30, TimeUnit.SECONDS); // retried meanwhile
                long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertThat(waitedMs).as("not before the debt of 15 was repaid at 5/s").isGreaterThanOrEqualTo(2_900);
                assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).contains("big0", "small0");
            }
        }
    }

    @Test
    void oldVersionsAreServedInFullAndThrottledWithTheConnectionHeld() throws Exception {
        MutableClock clock = new MutableClock(1_000_000L);
        try (Brook brook = Brook.builder().clock(clock).start()) {
            limit(brook, "brook-test", 1.0); // the protocol client's id: a burst of 11
            try (ProtocolClient c = new ProtocolClient(brook.bootstrapServers());
                    ProtocolClient other = new ProtocolClient(brook.bootstrapServers())) {
                List<CreatableTopic> four = new ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    four.add(new CreatableTopic().name("old" + i).numPartitions(4).replicationFactor((short) 1));
                }
                // CreateTopics v5 is permissive: all 16 created, 5 over the burst, 5 s to repay
                CreateTopicsResponse r = c.call(new CreateTopicsRequest().topics(four).timeoutMs(30_000), (short) 5);
                assertThat(r.topics()).extracting(CreatableTopicResult::errorCode).containsOnly((short) 0);
                assertThat(r.throttleTimeMs()).isEqualTo(5_000);

                // KIP-219: nothing more is read from that connection for the throttle time
                int id = c.send(new MetadataRequest().topics(Collections.emptyList()), (short) 12);
                other.call(new ApiVersionsRequest(), (short) 3);
                c.raw().setReadTimeout(100);
                assertThatThrownBy(c.raw()::readFrame).isInstanceOf(SocketTimeoutException.class);
                c.raw().setReadTimeout(30_000);
                clock.advance(5_000);
                MetadataResponse m = c.receive(ApiKey.METADATA, (short) 12, id);
                assertThat(m.throttleTimeMs()).isZero();

                // v7 is strict: refused at once while the bucket is below zero (-5 + 5 = 0 now: one more goes)
                CreateTopicsResponse strict = c.call(new CreateTopicsRequest().timeoutMs(30_000).topics(List.of(
                        new CreatableTopic().name("new0").numPartitions(2).replicationFactor((short) 1),
                        new CreatableTopic().name("new1").numPartitions(1).replicationFactor((short) 1))), (short) 7);
                assertThat(strict.topics().get(0).errorCode()).isZero();
                assertThat(strict.topics().get(1).errorCode()).isEqualTo((short) 89);
                assertThat(strict.topics().get(1).errorMessage()).isEqualTo("The throttling quota has been exceeded.");
                assertThat(strict.throttleTimeMs()).isEqualTo(2_000);
                clock.advance(2_000);

                // DeleteTopics v4 is permissive too: 16 partitions deleted at 0, 16 s to repay
                DeleteTopicsResponse d = c.call(new DeleteTopicsRequest().timeoutMs(30_000)
                        .topicNames(List.of("old0", "old1", "old2", "old3")), (short) 4);
                assertThat(d.responses()).extracting(DeleteTopicsResponse.DeletableTopicResult::errorCode)
                        .containsOnly((short) 0);
                assertThat(d.throttleTimeMs()).isEqualTo(16_000);
            }
        }
    }

    @Test
    void topicsAutoCreatedByMetadataAreChargedWithoutRefusalOrThrottle() throws Exception {
        MutableClock clock = new MutableClock(1_000_000L);
        // a burst of 1/s × 2 windows × 1 s = 2 partition mutations; auto-created topics have 1 partition
        try (Brook brook = Brook.builder().clock(clock).config("quota.window.num", "2").config("num.partitions", "1")
                .start()) {
            limit(brook, "brook-test", 1.0); // the protocol client's id
            try (ProtocolClient c = new ProtocolClient(brook.bootstrapServers())) {
                List<MetadataRequest.MetadataRequestTopic> three = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    three.add(new MetadataRequest.MetadataRequestTopic().name("auto" + i));
                }
                MetadataResponse m = c.call(new MetadataRequest().allowAutoTopicCreation(true).topics(three), (short) 12);
                assertThat(m.throttleTimeMs()).as("permissive: no throttle").isZero();
                try (Admin admin = admin(brook, "other")) {
                    assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).as("all three created, one past the burst")
                            .contains("auto0", "auto1", "auto2");
                }
                // 2 - 3 = -1: the next strict creation by the same client is refused
                CreateTopicsResponse strict = c.call(new CreateTopicsRequest().timeoutMs(30_000).topics(List.of(
                        new CreatableTopic().name("after").numPartitions(1).replicationFactor((short) 1))), (short) 7);
                assertThat(strict.topics().get(0).errorCode()).isEqualTo((short) 89);
                assertThat(strict.throttleTimeMs()).isEqualTo(1_000);
            }
        }
    }
}
