package io.brook.cluster.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.cluster.metadata.MetadataRecord.FenceBroker;
import io.brook.cluster.metadata.MetadataRecord.Partition;
import io.brook.cluster.metadata.MetadataRecord.RegisterBroker;
import io.brook.cluster.metadata.MetadataRecord.RemoveTopic;
import io.brook.cluster.metadata.MetadataRecord.Topic;
import io.brook.cluster.metadata.MetadataRecord.UnfenceBroker;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Fencing and unfencing visit the broker's own partitions, and the index stays right as topics come and go. */
class ReplicaIndexTest {

    private final MetadataImage image = new MetadataImage();

    private void live(int id, long epoch) {
        image.apply(new RegisterBroker(id, new UUID(id, epoch), epoch, List.of(), null));
        image.apply(new UnfenceBroker(id, epoch));
    }

    @Test
    void fencingAndUnfencingVisitOnlyTheBrokersPartitions() {
        for (int b = 1; b <= 4; b++) {
            live(b, 1);
        }
        // 1,000 partitions on brokers 2..4, three on broker 1
        for (int t = 0; t < 10; t++) {
            UUID id = new UUID(5, t);
            image.apply(new Topic("t" + t, id));
            for (int p = 0; p < 100; p++) {
                List<Integer> r = List.of(2 + (p % 3), 2 + ((p + 1) % 3));
                image.apply(new Partition(id, p, r, r, r.get(0), 0, 0));
            }
        }
        UUID mine = new UUID(6, 0);
        image.apply(new Topic("mine", mine));
        for (int p = 0; p < 3; p++) {
            image.apply(new Partition(mine, p, List.of(1), List.of(1), 1, 0, 0));
        }
        long before = image.partitionsVisited();

        image.apply(new FenceBroker(1, 1));
        assertThat(image.topics().get(mine).partitions().values()).allMatch(p -> p.leader() == MetadataRecord.NO_LEADER);
        image.apply(new UnfenceBroker(1, 1));
        assertThat(image.topics().get(mine).partitions().values()).allMatch(p -> p.leader() == 1);

        assertThat(image.partitionsVisited() - before).isEqualTo(6);
        assertThat(image.replicaCount(1)).isEqualTo(3);
        assertThat(image.replicaCount(2)).isEqualTo(670);
    }

    @Test
    void theIndexFollowsRandomChangesAndMatchesAFullCount() {
        Random random = new Random(42);
        for (int b = 0; b < 6; b++) {
            live(b, 1);
        }
        List<UUID> ids = new ArrayList<>();
        for (int step = 0; step < 400; step++) {
            int what = random.nextInt(10);
            if (what < 5 || ids.isEmpty()) {
                UUID id = new UUID(9, step);
                image.apply(new Topic("t" + step, id));
                ids.add(id);
                for (int p = 0; p < 1 + random.nextInt(5); p++) {
                    int first = random.nextInt(6);
                    List<Integer> r = List.of(first, (first + 1 + random.nextInt(5)) % 6);
                    image.applyBatch(List.of(new Partition(id, p, r, r, r.get(0), 0, 0)));
                }
            } else if (what < 7) {
                image.apply(new RemoveTopic(ids.remove(random.nextInt(ids.size()))));
            } else {
                int b = random.nextInt(6);
                BrokerInfo info = image.brokers().get(b);
                image.apply(info.fenced() ? new UnfenceBroker(b, 1) : new FenceBroker(b, 1));
            }
        }
        MetadataImage rebuilt = new MetadataImage();
        rebuilt.applyBatch(image.toRecords());
        for (int b = 0; b < 6; b++) {
            int expected = 0;
            for (TopicInfo t : image.topics().values()) {
                for (PartitionInfo p : t.partitions().values()) {
                    expected += p.replicas().contains(b) ? 1 : 0;
                }
            }
            assertThat(image.replicaCount(b)).as("broker %d", b).isEqualTo(expected);
            assertThat(rebuilt.replicaCount(b)).as("rebuilt, broker %d", b).isEqualTo(expected);
        }
        assertThat(rebuilt).isEqualTo(image);
    }
}
