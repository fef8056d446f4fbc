package io.brook.cluster.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.cluster.metadata.MetadataRecord.Config;
import io.brook.cluster.metadata.MetadataRecord.FenceBroker;
import io.brook.cluster.metadata.MetadataRecord.Partition;
import io.brook.cluster.metadata.MetadataRecord.PartitionChange;
import io.brook.cluster.metadata.MetadataRecord.ProducerIds;
import io.brook.cluster.metadata.MetadataRecord.RegisterBroker;
import io.brook.cluster.metadata.MetadataRecord.Topic;
import io.brook.cluster.metadata.MetadataRecord.UnfenceBroker;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Image equality, which the convergence property of the quorum rests on: same state, equal; any difference, not. */
class MetadataImageEqualityTest {

    private static final UUID T = new UUID(1, 1);
    private static final MetadataRecord.AccessControlEntry ACL = new MetadataRecord.AccessControlEntry((byte) 2, "t",
            (byte) 3, "User:alice", "*", (byte) 3, (byte) 3);

    private static final MetadataRecord.DelegationToken TOKEN = new MetadataRecord.DelegationToken("tok",
            "User:alice", "User:alice", List.of("User:bob"), 1_000, 9_000, 5_000);

    private static final MetadataRecord.GroupConfig GROUP_CONFIG = new MetadataRecord.GroupConfig("g",
            "consumer.session.timeout.ms", "50000");

    private static MetadataRecord.UserScramCredential credential(byte[] serverKey) {
        return new MetadataRecord.UserScramCredential("alice", (byte) 1, 4096, new byte[] {1}, new byte[] {2},
                serverKey);
    }

    private static List<MetadataRecord> base() {
        List<MetadataRecord> records = new ArrayList<>();
        for (int id = 1; id <= 2; id++) {
            records.add(new RegisterBroker(id, new UUID(id, 1), 1, List.of(new Endpoint("PLAINTEXT", "h" + id, 9000)),
                    null));
            records.add(new UnfenceBroker(id, 1));
        }
        records.add(new Topic("t", T));
        records.add(new Partition(T, 0, List.of(1, 2), List.of(1, 2), 1, 0, 0));
        records.add(new Config(MetadataRecord.RESOURCE_TOPIC, "t", "retention.ms", "1000"));
        records.add(ACL);
        records.add(credential(new byte[] {9}));
        records.add(SecurityRecordsCodecTest.quota("alice", null, "producer_byte_rate", 100.0));
        records.add(TOKEN);
        records.add(GROUP_CONFIG);
        records.add(new ProducerIds(1, 1, 1000));
        return records;
    }

    private static MetadataImage image(List<MetadataRecord> records, MetadataRecord... more) {
        MetadataImage image = new MetadataImage();
        records.forEach(image::apply);
        for (MetadataRecord r : more) {
            image.apply(r);
        }
        return image;
    }

    @Test
    void imagesOfTheSameStateAreEqualHoweverTheyWereBuilt() {
        MetadataImage built = image(base());
        MetadataImage rebuilt = image(built.toRecords());

        assertThat(built).isEqualTo(image(base())).isEqualTo(rebuilt).hasSameHashCodeAs(rebuilt);
        // a change and its undoing leave an equal state only where the epochs agree: the ISR change bumps them
        assertThat(image(base(), new PartitionChange(T, 0, 1, List.of(1)), new PartitionChange(T, 0, 1, List.of(1, 2))))
                .isNotEqualTo(built);
    }

    @Test
    void anyDifferenceMakesImagesUnequal() {
        MetadataImage built = image(base());

        assertThat(image(base(), new FenceBroker(2, 1))).isNotEqualTo(built);
        assertThat(image(base(), new PartitionChange(T, 0, 1, List.of(1)))).isNotEqualTo(built);
        assertThat(image(base(), new Config(MetadataRecord.RESOURCE_TOPIC, "t", "retention.ms", "2000")))
                .isNotEqualTo(built);
        assertThat(image(base(), new Config(MetadataRecord.RESOURCE_BROKER, "1", "k", "v"))).isNotEqualTo(built);
        assertThat(image(base(), new Topic("u", new UUID(1, 2)))).isNotEqualTo(built);
        List<MetadataRecord> otherOwner = base();
        otherOwner.set(otherOwner.size() - 1, new ProducerIds(2, 1, 1000));
        assertThat(image(otherOwner)).as("the same next producer id, given to another broker").isNotEqualTo(built);
        assertThat(image(base(), MetadataRecord.RemoveAccessControlEntry.of(ACL))).isNotEqualTo(built);
        assertThat(image(base(), new MetadataRecord.AccessControlEntry((byte) 2, "t", (byte) 3, "User:alice", "*",
                (byte) 3, (byte) 2))).isNotEqualTo(built);
        assertThat(image(base(), credential(new byte[] {8}))).as("another server key").isNotEqualTo(built);
        assertThat(image(base(), new MetadataRecord.RemoveUserScramCredential("alice", (byte) 1))).isNotEqualTo(built);
        assertThat(image(base(), SecurityRecordsCodecTest.quota("alice", null, "producer_byte_rate", 101.0)))
                .isNotEqualTo(built);
        assertThat(image(base(), SecurityRecordsCodecTest.quota("alice", null, "consumer_byte_rate", 100.0)))
                .isNotEqualTo(built);
        assertThat(image(base(), SecurityRecordsCodecTest.quota(null, null, "producer_byte_rate", 100.0)))
                .isNotEqualTo(built);
        assertThat(image(base(), new MetadataRecord.DelegationToken("tok", "User:alice", "User:alice",
                List.of("User:bob"), 1_000, 9_000, 6_000))).as("a renewed token").isNotEqualTo(built);
        assertThat(image(base(), new MetadataRecord.DelegationToken("tok", "User:alice", "User:alice",
                List.of("User:carol"), 1_000, 9_000, 5_000))).as("another renewer").isNotEqualTo(built);
        assertThat(image(base(), new MetadataRecord.RemoveDelegationToken("tok"))).isNotEqualTo(built);
        assertThat(image(base(), new MetadataRecord.GroupConfig("g", "consumer.session.timeout.ms", "60000")))
                .as("another value").isNotEqualTo(built);
        assertThat(image(base(), new MetadataRecord.GroupConfig("g", "consumer.heartbeat.interval.ms", "3000")))
                .as("another key").isNotEqualTo(built);
        assertThat(image(base(), new MetadataRecord.GroupConfig("h", "consumer.session.timeout.ms", "50000")))
                .as("another group").isNotEqualTo(built);
        assertThat(image(base(), new MetadataRecord.GroupConfig("g", "consumer.session.timeout.ms", null)))
                .as("the setting removed").isNotEqualTo(built);
    }

    @Test
    void theCountOfSecurityChangesIsNotState() {
        MetadataImage built = image(base());
        // the same ACL, credential, token and group setting again, a quota key that was never set, a
        // token that never was removed and a group setting never made
        MetadataImage busier = image(base(), ACL, credential(new byte[] {9}),
                SecurityRecordsCodecTest.quota("bob", null, "producer_byte_rate", null), TOKEN,
                new MetadataRecord.RemoveDelegationToken("never-created"), GROUP_CONFIG,
                new MetadataRecord.GroupConfig("h", "consumer.session.timeout.ms", null));

        assertThat(busier.securityChanges()).isEqualTo(built.securityChanges() + 7);
        assertThat(busier).isEqualTo(built).hasSameHashCodeAs(built);
    }
}
