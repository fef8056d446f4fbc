package io.brook.cluster.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.cluster.metadata.Endpoint;
import io.brook.cluster.metadata.MetadataRecord;
import io.brook.cluster.metadata.PartitionInfo;
import io.brook.testkit.MutableClock;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** UnregisterBroker ({@code kafka-cluster.sh unregister}) as the controller decides it. */
class ControllerUnregisterTest {

    private final MutableClock clock = new MutableClock(1_000_000);
    private final ImageLog log = new ImageLog();
    private final Controller controller = new Controller(clock, Controller.DEFAULT_SESSION_TIMEOUT_MS, log,
            () -> new UUID(7, 1));

    private long register(int id) {
        long epoch = controller.registerBroker(id, new UUID(1, id), List.of(new Endpoint("PLAINTEXT", "h", 9092 + id)),
                null).join();
        controller.heartbeat(id, epoch).join();
        return epoch;
    }

    @Test
    void forgetsAFencedBroker() {
        long epoch = register(2);
        controller.controlledShutdown(2, epoch).join();

        controller.unregisterBroker(2).join();

        boolean known = log.read(image -> image.brokers().containsKey(2));
        assertThat(known).isFalse();
    }

    @Test
    void fencesALiveBrokerInTheSameBatchSoThatItLeadsNothingWhenForgotten() {
        register(1);
        register(2);
        controller.createTopic("t", 2, 1, Map.of()).join();
        long before = log.lastAppliedIndex();

        controller.unregisterBroker(2).join();

        assertThat(log.lastAppliedIndex()).isEqualTo(before + 1);
        List<Integer> brokers = log.read(image -> List.copyOf(image.brokers().keySet()));
        assertThat(brokers).containsExactly(1);
        List<PartitionInfo> partitions = log.read(image -> List.copyOf(
                image.topics().get(image.topicId("t")).partitions().values()));
        assertThat(partitions).extracting(PartitionInfo::leader).doesNotContain(2);
        assertThat(partitions).filteredOn(p -> p.replicas().equals(List.of(2)))
                .extracting(PartitionInfo::leader).containsOnly(MetadataRecord.NO_LEADER);
    }

    @Test
    void refusesAnIdThatIsNotRegistered() {
        register(1);

        assertThatThrownBy(() -> controller.unregisterBroker(9).join()).isInstanceOf(CompletionException.class)
                .cause().isInstanceOf(ControllerException.class)
                .satisfies(e -> assertThat(((ControllerException) e).error())
                        .isEqualTo(ControllerError.BROKER_ID_NOT_REGISTERED));
    }

    @Test
    void anUnregisteredBrokerRegistersAgainWithAHigherEpoch() {
        long first = register(2);
        controller.unregisterBroker(2).join();

        long second = register(2);

        assertThat(second).isGreaterThan(first);
        boolean fenced = log.read(image -> image.brokers().get(2).fenced());
        assertThat(fenced).isFalse();
    }
}
