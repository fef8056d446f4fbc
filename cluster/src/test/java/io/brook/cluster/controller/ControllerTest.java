package io.brook.cluster.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.cluster.metadata.BrokerInfo;
import io.brook.cluster.metadata.ConfigResource;
import io.brook.cluster.metadata.Endpoint;
import io.brook.cluster.metadata.MetadataImage;
import io.brook.cluster.metadata.MetadataRecord;
import io.brook.cluster.metadata.PartitionInfo;
import io.brook.cluster.metadata.TopicInfo;
import io.brook.cluster.raft.AppendResult;
import io.brook.cluster.raft.MetadataLog;
import io.brook.testkit.MutableClock;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** The controller's decisions on a manual clock, over a log that applies at once. */
class ControllerTest {

    private static final long SESSION = Controller.DEFAULT_SESSION_TIMEOUT_MS;

    private final MutableClock clock = new MutableClock(1_000_000);
    private final ImageLog log = new ImageLog();
    private final AtomicLong ids = new AtomicLong(1);
    private final Controller controller = new Controller(clock, SESSION, log, () -> new UUID(7, ids.getAndIncrement()));

    private static <T> T join(CompletableFuture<T> f) {
        return f.join();
    }

    private long register(int id, String rack) {
        long epoch = join(controller.registerBroker(id, new UUID(1, id), List.of(new Endpoint("PLAINTEXT", "h" + id, 9092)), rack));
        join(controller.heartbeat(id, epoch));
        return epoch;
    }

    private BrokerInfo broker(int id) {
        return log.read(image -> image.brokers().get(id));
    }

    private TopicInfo topic(String name) {
        return log.read(image -> image.topics().get(image.topicId(name)));
    }

    private static ControllerError errorOf(CompletableFuture<?> f) {
        try {
            f.join();
        } catch (CompletionException e) {
            return ((ControllerException) e.getCause()).error();
        }
        throw new AssertionError("expected a ControllerException");
    }

    @Test
    void aRegisteredBrokerIsFencedUntilItsFirstHeartbeat() {
        long epoch = join(controller.registerBroker(1, new UUID(1, 1), List.of(), "r"));
        assertThat(broker(1).fenced()).isTrue();
        assertThat(broker(1).epoch()).isEqualTo(epoch);

        join(controller.heartbeat(1, epoch));

        assertThat(broker(1).fenced()).isFalse();
    }

    @Test
    void epochsGrowOnEveryRegistrationAndStaleOnesAreRefused() {
        long first = register(1, null);
        long second = join(controller.registerBroker(1, new UUID(1, 1), List.of(), null));

        assertThat(second).isGreaterThan(first);
        assertThat(errorOf(controller.heartbeat(1, first))).isEqualTo(ControllerError.STALE_BROKER_EPOCH);
        assertThat(errorOf(controller.heartbeat(9, 1))).isEqualTo(ControllerError.BROKER_ID_NOT_REGISTERED);
    }

    @Test
    void fencesABrokerOnlyAfterTheSessionTimeoutAndMovesItsLeadership() {
        long epoch1 = register(1, null);
        register(2, null);
        join(controller.createTopic("t", 4, 1, Map.of()));

        clock.advance(SESSION);
        join(controller.heartbeat(2, broker(2).epoch()));
        assertThat(join(controller.tick())).isEmpty();

        clock.advance(1);
        assertThat(join(controller.tick())).containsExactly(1);

        assertThat(broker(1).fenced()).isTrue();
        for (PartitionInfo p : topic("t").partitions().values()) {
            assertThat(p.leader()).isIn(2, MetadataRecord.NO_LEADER);
            if (p.replicas().equals(List.of(1))) {
                assertThat(p.leader()).isEqualTo(MetadataRecord.NO_LEADER);
                assertThat(p.leaderEpoch()).isEqualTo(1);
            }
        }

        join(controller.heartbeat(1, epoch1));
        assertThat(broker(1).fenced()).isFalse();
        for (PartitionInfo p : topic("t").partitions().values()) {
            assertThat(p.leader()).isEqualTo(p.replicas().get(0));
        }
        assertThat(join(controller.tick())).isEmpty();
    }

    @Test
    void aNewControllerGivesEveryBrokerAWholeSession() {
        register(1, null);
        clock.advance(SESSION * 5);
        Controller next = new Controller(clock, SESSION, log, UUID::randomUUID);

        assertThat(join(next.tick())).isEmpty();
        clock.advance(SESSION + 1);
        assertThat(join(next.tick())).containsExactly(1);
    }

    @Test
    void refusesASecondProcessWithALiveBrokersIdUntilItsSessionEnds() {
        register(1, null);

        CompletableFuture<Long> duplicate = controller.registerBroker(1, new UUID(2, 2), List.of(), null);
        assertThat(errorOf(duplicate)).isEqualTo(ControllerError.DUPLICATE_BROKER_REGISTRATION);

        clock.advance(SESSION + 1);
        assertThat(join(controller.registerBroker(1, new UUID(2, 2), List.of(), null))).isPositive();
        assertThat(broker(1).incarnationId()).isEqualTo(new UUID(2, 2));
    }

    @Test
    void createsTopicsOverLiveBrokersOnlyInOneBatch() {
        register(1, "a");
        register(2, "b");
        register(3, "a");
        clock.advance(SESSION + 1);
        join(controller.heartbeat(1, broker(1).epoch()));
        join(controller.heartbeat(2, broker(2).epoch()));
        assertThat(join(controller.tick())).containsExactly(3);
        int batches = log.batches.size();

        UUID id = join(controller.createTopic("orders", 6, 2, Map.of("retention.ms", "1000")));

        assertThat(log.batches).hasSize(batches + 1);
        TopicInfo t = topic("orders");
        assertThat(t.id()).isEqualTo(id);
        assertThat(t.partitions()).hasSize(6);
        for (PartitionInfo p : t.partitions().values()) {
            assertThat(p.replicas()).containsExactlyInAnyOrder(1, 2);
            assertThat(p.isr()).isEqualTo(p.replicas());
            assertThat(p.leader()).isEqualTo(p.replicas().get(0));
        }
        assertThat(log.<Map<String, String>>read(image -> image.configs(new ConfigResource(MetadataRecord.RESOURCE_TOPIC, "orders"))))
                .containsEntry("retention.ms", "1000");
    }

    @Test
    void refusesBadTopicRequests() {
        register(1, null);
        join(controller.createTopic("t", 1, 1, Map.of()));

        assertThat(errorOf(controller.createTopic("t", 1, 1, Map.of()))).isEqualTo(ControllerError.TOPIC_ALREADY_EXISTS);
        assertThat(errorOf(controller.createTopic("a/b", 1, 1, Map.of()))).isEqualTo(ControllerError.INVALID_TOPIC_EXCEPTION);
        assertThat(errorOf(controller.createTopic("u", 0, 1, Map.of()))).isEqualTo(ControllerError.INVALID_PARTITIONS);
        assertThat(errorOf(controller.createTopic("u", 1, 2, Map.of()))).isEqualTo(ControllerError.INVALID_REPLICATION_FACTOR);
        assertThat(errorOf(controller.deleteTopic("nope"))).isEqualTo(ControllerError.UNKNOWN_TOPIC_OR_PARTITION);
        assertThat(errorOf(controller.createPartitions("t", 1))).isEqualTo(ControllerError.INVALID_PARTITIONS);
        assertThat(errorOf(controller.alterTopicConfig("nope", "k", "v"))).isEqualTo(ControllerError.UNKNOWN_TOPIC_OR_PARTITION);
    }

    @Test
    void addsPartitionsAndDeletesTopics() {
        register(1, null);
        register(2, null);
        join(controller.createTopic("t", 2, 2, Map.of()));

        join(controller.createPartitions("t", 5));
        assertThat(topic("t").partitions()).hasSize(5);
        assertThat(topic("t").partitions().get(4).replicas()).hasSize(2);

        join(controller.deleteTopic("t"));
        assertThat(log.<UUID>read(image -> image.topicId("t"))).isNull();
    }

    @Test
    void producerIdBlocksNeverOverlapEvenAcrossControllers() {
        long epoch1 = register(1, null);
        long epoch2 = register(2, null);

        ProducerIdBlock a = join(controller.allocateProducerIds(1, epoch1));
        ProducerIdBlock b = join(controller.allocateProducerIds(2, epoch2));
        ProducerIdBlock c = join(new Controller(clock, SESSION, log, UUID::randomUUID).allocateProducerIds(1, epoch1));

        assertThat(a).isEqualTo(new ProducerIdBlock(1, 0, 1000));
        assertThat(b).isEqualTo(new ProducerIdBlock(2, 1000, 1000));
        assertThat(c).isEqualTo(new ProducerIdBlock(1, 2000, 1000));
        assertThat(log.<Long>read(MetadataImage::nextProducerId)).isEqualTo(3000);
        assertThat(errorOf(controller.allocateProducerIds(1, epoch1 - 1))).isEqualTo(ControllerError.STALE_BROKER_EPOCH);
    }

    @Test
    void aDecisionTheImageRejectsFailsWithNotController() {
        long epoch = register(1, null);
        MetadataLog racing = new MetadataLog() {
            private boolean raced;

            @Override
            public <T> T read(Function<MetadataImage, T> reader) {
                return log.read(reader);
            }

            @Override
            public long lastAppliedIndex() {
                return log.lastAppliedIndex();
            }

            @Override
            public CompletableFuture<AppendResult> append(List<? extends MetadataRecord> records) {
                if (!raced) {
                    // another controller's write lands between this one's read and its append
                    raced = true;
                    log.append(List.of(new MetadataRecord.ProducerIds(2, 1, 5000)));
                }
                return log.append(records);
            }
        };
        Controller stale = new Controller(clock, SESSION, racing, UUID::randomUUID);

        assertThat(errorOf(stale.allocateProducerIds(1, epoch))).isEqualTo(ControllerError.NOT_CONTROLLER);
        assertThat(join(stale.allocateProducerIds(1, epoch)).firstId()).isEqualTo(5000);
    }
}
