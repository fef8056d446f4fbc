package io.brook.cluster.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.cluster.metadata.MetadataRecord.Config;
import io.brook.cluster.metadata.MetadataRecord.FenceBroker;
import io.brook.cluster.metadata.MetadataRecord.Partition;
import io.brook.cluster.metadata.MetadataRecord.PartitionChange;
import io.brook.cluster.metadata.MetadataRecord.PartitionReassignment;
import io.brook.cluster.metadata.MetadataRecord.ProducerIds;
import io.brook.cluster.metadata.MetadataRecord.RegisterBroker;
import io.brook.cluster.metadata.MetadataRecord.RemoveTopic;
import io.brook.cluster.metadata.MetadataRecord.Topic;
import io.brook.cluster.metadata.MetadataRecord.UnfenceBroker;
import io.brook.cluster.metadata.MetadataRecord.UnregisterBroker;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class MetadataImageTest {

    private static final UUID T = new UUID(1, 1);

    private final MetadataImage image = new MetadataImage();

    private static RegisterBroker register(int id, long epoch, String rack) {
        return new RegisterBroker(id, new UUID(id, epoch), epoch, List.of(new Endpoint("PLAINTEXT", "h" + id, 9000 + id)), rack);
    }

    private void liveBrokers(int... ids) {
        for (int id : ids) {
            image.apply(register(id, 1, null));
            image.apply(new UnfenceBroker(id, 1));
        }
    }

    @Test
    void registeredBrokersStartFencedAndUnfenceWithTheirEpoch() {
        image.apply(register(1, 5, "r1"));
        assertThat(image.brokers().get(1).fenced()).isTrue();

        assertThatThrownBy(() -> image.apply(new UnfenceBroker(1, 4))).isInstanceOf(RejectedRecordException.class)
                .hasMessageContaining("epoch 5, not 4");
        image.apply(new UnfenceBroker(1, 5));

        assertThat(image.brokers().get(1)).isEqualTo(new BrokerInfo(1, new UUID(1, 5), 5,
                List.of(new Endpoint("PLAINTEXT", "h1", 9001)), "r1", false));
        assertThatThrownBy(() -> image.apply(register(1, 5, null))).isInstanceOf(RejectedRecordException.class)
                .hasMessageContaining("not above its current epoch 5");
    }

    @Test
    void fencingTheLeaderMovesLeadershipToTheNextLiveIsrMember() {
        liveBrokers(1, 2, 3);
        image.apply(new Topic("t", T));
        image.apply(new Partition(T, 0, List.of(1, 2, 3), List.of(1, 2, 3), 1, 0, 0));

        image.apply(new FenceBroker(1, 1));

        assertThat(image.topics().get(T).partitions().get(0))
                .isEqualTo(new PartitionInfo(List.of(1, 2, 3), List.of(2, 3), 2, 1, 1));
    }

    @Test
    void fencingTheOnlyReplicaLeavesThePartitionWithoutLeaderUntilItReturns() {
        liveBrokers(1);
        image.apply(new Topic("t", T));
        image.apply(new Partition(T, 0, List.of(1), List.of(1), 1, 0, 0));

        image.apply(new FenceBroker(1, 1));
        assertThat(image.topics().get(T).partitions().get(0))
                .isEqualTo(new PartitionInfo(List.of(1), List.of(1), MetadataRecord.NO_LEADER, 1, 1));

        image.apply(new UnfenceBroker(1, 1));
        assertThat(image.topics().get(T).partitions().get(0))
                .isEqualTo(new PartitionInfo(List.of(1), List.of(1), 1, 2, 2));
    }

    @Test
    void reRegistrationOfALiveBrokerFencesIt() {
        liveBrokers(1);
        image.apply(new Topic("t", T));
        image.apply(new Partition(T, 0, List.of(1), List.of(1), 1, 0, 0));

        image.apply(register(1, 2, null));

        assertThat(image.brokers().get(1).fenced()).isTrue();
        assertThat(image.topics().get(T).partitions().get(0).leader()).isEqualTo(MetadataRecord.NO_LEADER);
    }

    @Test
    void partitionChangeBumpsTheLeaderEpochOnlyWhenTheLeaderChanges() {
        liveBrokers(1, 2);
        image.apply(new Topic("t", T));
        image.apply(new Partition(T, 0, List.of(1, 2), List.of(1, 2), 1, 0, 0));

        image.apply(new PartitionChange(T, 0, 1, List.of(1)));
        assertThat(image.topics().get(T).partitions().get(0)).isEqualTo(new PartitionInfo(List.of(1, 2), List.of(1), 1, 0, 1));
        image.apply(new PartitionChange(T, 0, 2, List.of(1, 2)));
        assertThat(image.topics().get(T).partitions().get(0)).isEqualTo(new PartitionInfo(List.of(1, 2), List.of(1, 2), 2, 1, 2));
    }

    @Test
    void rejectedRecordsLeaveTheImageUnchanged() {
        liveBrokers(1, 2);
        image.apply(new Topic("t", T));
        image.apply(new Partition(T, 0, List.of(1, 2), List.of(1, 2), 1, 0, 0));
        List<MetadataRecord> before = image.toRecords();

        List<MetadataRecord> bad = List.of(
                new Topic("t", new UUID(2, 2)),
                new Topic("other", T),
                new Topic("bad/name", new UUID(3, 3)),
                new Topic("..", new UUID(3, 3)),
                new Topic("zero", new UUID(0, 0)),
                new Partition(new UUID(9, 9), 0, List.of(1), List.of(1), 1, 0, 0),
                new Partition(T, 0, List.of(1), List.of(1), 1, 0, 0),
                new Partition(T, 1, List.of(), List.of(), -1, 0, 0),
                new Partition(T, 1, List.of(1, 1), List.of(1), 1, 0, 0),
                new Partition(T, 1, List.of(1), List.of(2), 2, 0, 0),
                new Partition(T, 1, List.of(1, 2), List.of(1), 2, 0, 0),
                new Partition(T, -1, List.of(1), List.of(1), 1, 0, 0),
                new PartitionChange(T, 5, 1, List.of(1)),
                new PartitionChange(T, 0, 3, List.of(3)),
                new PartitionChange(T, 0, 1, List.of()),
                new RemoveTopic(new UUID(9, 9)),
                new FenceBroker(3, 1),
                new UnfenceBroker(1, 1),
                new UnregisterBroker(1, 1),
                new Config(MetadataRecord.RESOURCE_TOPIC, "missing", "k", "v"),
                new Config((byte) 7, "x", "k", "v"),
                new ProducerIds(1, 1, 0),
                new MetadataRecord.NodeDirectory(1, new UUID(0, 0)),
                register(-1, 1, null));
        for (MetadataRecord r : bad) {
            assertThatThrownBy(() -> image.apply(r)).as("%s", r).isInstanceOf(RejectedRecordException.class);
        }

        assertThat(image.toRecords()).isEqualTo(before);
    }

    @Test
    void removingATopicRemovesItsConfigsAndFreesItsName() {
        image.apply(new Topic("t", T));
        image.apply(new Config(MetadataRecord.RESOURCE_TOPIC, "t", "retention.ms", "1"));
        image.apply(new RemoveTopic(T));

        image.apply(new Topic("t", new UUID(5, 5)));
        assertThat(image.configs(new ConfigResource(MetadataRecord.RESOURCE_TOPIC, "t"))).isEmpty();
        assertThat(image.topicId("t")).isEqualTo(new UUID(5, 5));
    }

    /**
     * Random create, delete and alter records, valid and invalid mixed, applied to one image
     * directly and to another after a trip through the codec: both accept and reject the same
     * records and end equal, and the records an image is rebuilt from give an equal image again.
     */
    @Test
    void randomSequencesGiveIdenticalImagesEverywhere() {
        for (long seed = 0; seed < 50; seed++) {
            Random random = new Random(seed);
            List<MetadataRecord> log = randomRecords(random, 400);
            MetadataImage a = new MetadataImage();
            MetadataImage b = new MetadataImage();
            List<MetadataRecord> decoded = MetadataCodec.decodeBatch(ByteBuffer.wrap(MetadataCodec.encodeBatch(log)));
            List<Boolean> acceptedA = applyAll(a, log);
            List<Boolean> acceptedB = applyAll(b, decoded);

            assertThat(acceptedB).as("seed %d", seed).isEqualTo(acceptedA);
            assertThat(acceptedA).as("seed %d accepts some and rejects some", seed).contains(true, false);
            assertThat(b.toRecords()).as("seed %d", seed).isEqualTo(a.toRecords());
            MetadataImage rebuilt = new MetadataImage();
            assertThat(applyAll(rebuilt, a.toRecords())).doesNotContain(false);
            assertThat(rebuilt.toRecords()).as("seed %d", seed).isEqualTo(a.toRecords());
        }
    }

    private static List<Boolean> applyAll(MetadataImage image, List<MetadataRecord> records) {
        List<Boolean> accepted = new ArrayList<>();
        for (MetadataRecord r : records) {
            try {
                image.apply(r);
                accepted.add(true);
            } catch (RejectedRecordException e) {
                accepted.add(false);
            }
        }
        return accepted;
    }

    static List<MetadataRecord> randomRecords(Random random, int count) {
        List<MetadataRecord> out = new ArrayList<>();
        long producerIds = 0;
        for (int i = 0; i < count; i++) {
            int broker = random.nextInt(5);
            long epoch = 1 + random.nextInt(3);
            UUID topic = new UUID(0, 1 + random.nextInt(6));
            int partition = random.nextInt(4);
            switch (random.nextInt(14)) {
                case 0 -> out.add(register(broker, epoch, random.nextBoolean() ? "r" + broker % 2 : null));
                case 1 -> out.add(random.nextInt(4) == 0 ? new UnregisterBroker(broker, epoch) : new FenceBroker(broker, epoch));
                case 2 -> out.add(new UnfenceBroker(broker, epoch));
                case 3 -> out.add(new Topic("topic-" + random.nextInt(6), topic));
                case 4, 5 -> {
                    List<Integer> replicas = randomBrokers(random);
                    List<Integer> isr = replicas.subList(0, 1 + random.nextInt(replicas.size()));
                    out.add(new Partition(topic, partition, replicas, isr, isr.get(0), 0, 0));
                }
                case 6 -> {
                    List<Integer> isr = randomBrokers(random);
                    out.add(new PartitionChange(topic, partition, random.nextBoolean() ? isr.get(0) : -1, isr));
                }
                case 10 -> {
                    List<Integer> replicas = randomBrokers(random);
                    List<Integer> isr = replicas.subList(0, 1 + random.nextInt(replicas.size()));
                    List<Integer> adding = replicas.subList(isr.size(), replicas.size());
                    List<Integer> removing = random.nextBoolean() || adding.isEmpty() ? List.of() : isr.subList(0, 1);
                    out.add(new PartitionReassignment(topic, partition, replicas, isr, isr.get(0), adding,
                            random.nextInt(3) == 0 ? List.of(99) : removing));
                }
                case 11 -> out.add(new MetadataRecord.NodeDirectory(broker, new UUID(random.nextInt(2), random.nextInt(3))));
                case 12 -> out.add(randomSecurityRecord(random, i));
                case 7 -> out.add(new RemoveTopic(topic));
                case 8 -> out.add(new Config(random.nextBoolean() ? MetadataRecord.RESOURCE_TOPIC : MetadataRecord.RESOURCE_BROKER,
                        "topic-" + random.nextInt(6), "k" + random.nextInt(3), random.nextBoolean() ? "v" + i : null));
                default -> {
                    producerIds += random.nextInt(3) == 0 ? -1000 : 1000;
                    out.add(new ProducerIds(broker, epoch, producerIds));
                }
            }
        }
        return out;
    }

    /** ACLs, credentials, quotas and delegation tokens over a few names and codes, valid and invalid mixed. */
    private static MetadataRecord randomSecurityRecord(Random random, int i) {
        String user = random.nextInt(5) == 0 ? "" : "user-" + random.nextInt(3);
        byte code = (byte) (1 + random.nextInt(4));
        return switch (random.nextInt(7)) {
            case 0, 1 -> {
                MetadataRecord.AccessControlEntry e = new MetadataRecord.AccessControlEntry((byte) (2 + random.nextInt(2)),
                        "topic-" + random.nextInt(3), (byte) (3 + random.nextInt(2)), "User:" + user, "*", code,
                        (byte) (2 + random.nextInt(2)));
                yield random.nextBoolean() ? e : MetadataRecord.RemoveAccessControlEntry.of(e);
            }
            case 2 -> new MetadataRecord.UserScramCredential(user, code, 4096 * random.nextInt(3),
                    new byte[] {(byte) i}, new byte[] {(byte) random.nextInt(3)}, new byte[] {1});
            case 3 -> new MetadataRecord.RemoveUserScramCredential(user, code);
            case 4 -> {
                // an empty user makes the owner "User:" (a principal), an empty id makes the token malformed
                String id = random.nextInt(6) == 0 ? "" : "token-" + random.nextInt(4);
                long issued = 1000L * random.nextInt(3);
                long max = issued + 1000L * (random.nextInt(4) - 1);
                String requester = random.nextInt(6) == 0 ? user : "User:admin";
                yield new MetadataRecord.DelegationToken(id, "User:" + user, requester,
                        random.nextBoolean() ? List.of() : List.of("User:renewer-" + random.nextInt(2)), issued, max,
                        max - 500L * random.nextInt(3) + (random.nextInt(8) == 0 ? 1 : 0));
            }
            case 5 -> new MetadataRecord.RemoveDelegationToken(random.nextInt(6) == 0 ? null
                    : "token-" + random.nextInt(5));
            default -> {
                java.util.TreeMap<String, String> entity = new java.util.TreeMap<>();
                entity.put(random.nextBoolean() ? "user" : "ip", random.nextBoolean() ? null : user);
                if (random.nextInt(3) == 0) {
                    entity.put("client-id", "app");
                }
                yield new MetadataRecord.ClientQuota(entity, "k" + random.nextInt(2),
                        random.nextBoolean() ? null : (double) random.nextInt(5) - 1);
            }
        };
    }

    private static List<Integer> randomBrokers(Random random) {
        List<Integer> ids = new ArrayList<>(List.of(0, 1, 2, 3, 4));
        java.util.Collections.shuffle(ids, random);
        return List.copyOf(ids.subList(0, 1 + random.nextInt(3)));
    }
}
