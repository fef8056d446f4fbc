package io.brook.cluster.metadata;

import static io.brook.cluster.metadata.SecurityRecordsCodecTest.quota;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.cluster.metadata.MetadataRecord.AccessControlEntry;
import io.brook.cluster.metadata.MetadataRecord.ClientQuota;
import io.brook.cluster.metadata.MetadataRecord.DelegationToken;
import io.brook.cluster.metadata.MetadataRecord.DelegationTokenExpiry;
import io.brook.cluster.metadata.MetadataRecord.GroupConfig;
import io.brook.cluster.metadata.MetadataRecord.RemoveAccessControlEntry;
import io.brook.cluster.metadata.MetadataRecord.RemoveDelegationToken;
import io.brook.cluster.metadata.MetadataRecord.RemoveUserScramCredential;
import io.brook.cluster.metadata.MetadataRecord.UserScramCredential;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * ACL entries, SCRAM credentials, client quotas, delegation tokens and group settings in the
 * image: what applies, what is rejected, snapshots.
 */
class SecurityImageTest {

    private final MetadataImage image = new MetadataImage();

    private static AccessControlEntry acl(String resource, String principal, byte operation) {
        return new AccessControlEntry((byte) 2, resource, (byte) 3, principal, "*", operation, (byte) 3);
    }

    private static UserScramCredential credential(String user, int mechanism, int iterations) {
        return new UserScramCredential(user, (byte) mechanism, iterations, new byte[] {1, 2}, new byte[] {3, 4},
                new byte[] {5, 6});
    }

    private static DelegationToken token(String id, String owner, long expiry) {
        return new DelegationToken(id, owner, "User:admin", List.of("User:renewer"), 1_000, 10_000, expiry);
    }

    private static ClientQuota entityQuota(String key, Double value, String... typeAndName) {
        TreeMap<String, String> entity = new TreeMap<>();
        for (int i = 0; i < typeAndName.length; i += 2) {
            entity.put(typeAndName[i], typeAndName[i + 1]);
        }
        return new ClientQuota(entity, key, value);
    }

    private void assertRejectedAndUnchanged(MetadataRecord... records) {
        List<MetadataRecord> before = image.toRecords();
        long changes = image.securityChanges();
        for (MetadataRecord r : records) {
            assertThatThrownBy(() -> image.apply(r)).as("%s", r).isInstanceOf(RejectedRecordException.class);
        }
        assertThat(image.toRecords()).isEqualTo(before);
        assertThat(image.securityChanges()).as("rejected records are not counted").isEqualTo(changes);
    }

    @Test
    void aclEntriesAreAddedOnceSortedAndRemovedOnlyWhenPresent() {
        AccessControlEntry read = acl("orders", "User:bob", (byte) 3);
        AccessControlEntry write = acl("orders", "User:alice", (byte) 4);
        AccessControlEntry group = new AccessControlEntry((byte) 3, "g", (byte) 4, "User:alice", "10.0.0.1",
                (byte) 2, (byte) 2);
        image.apply(group);
        image.apply(read);
        image.apply(write);
        image.apply(read);

        assertThat(image.acls()).as("once each, by resource type, name, ..., principal").containsExactly(write, read,
                group);
        assertThat(image.securityChanges()).as("adding one that exists still applies").isEqualTo(4);

        image.apply(RemoveAccessControlEntry.of(read));
        assertThat(image.acls()).containsExactly(write, group);
        assertRejectedAndUnchanged(RemoveAccessControlEntry.of(read),
                RemoveAccessControlEntry.of(acl("orders", "User:alice", (byte) 5)),
                new RemoveAccessControlEntry((byte) 2, null, (byte) 3, null, null, (byte) 4, (byte) 3));
    }

    @Test
    void aclEntriesOutsideKafkasCodesOrWithoutNamesAreRejected() {
        image.apply(acl("kept", "User:a", (byte) 3));

        assertRejectedAndUnchanged(
                new AccessControlEntry((byte) 1, "t", (byte) 3, "User:a", "*", (byte) 3, (byte) 3),
                new AccessControlEntry((byte) 8, "t", (byte) 3, "User:a", "*", (byte) 3, (byte) 3),
                new AccessControlEntry((byte) 2, "t", (byte) 2, "User:a", "*", (byte) 3, (byte) 3),
                new AccessControlEntry((byte) 2, "t", (byte) 5, "User:a", "*", (byte) 3, (byte) 3),
                new AccessControlEntry((byte) 2, "t", (byte) 3, "User:a", "*", (byte) 1, (byte) 3),
                new AccessControlEntry((byte) 2, "t", (byte) 3, "User:a", "*", (byte) 16, (byte) 3),
                new AccessControlEntry((byte) 2, "t", (byte) 3, "User:a", "*", (byte) 3, (byte) 1),
                new AccessControlEntry((byte) 2, "t", (byte) 3, "User:a", "*", (byte) 3, (byte) 4),
                new AccessControlEntry((byte) 2, "", (byte) 3, "User:a", "*", (byte) 3, (byte) 3),
                new AccessControlEntry((byte) 2, null, (byte) 3, "User:a", "*", (byte) 3, (byte) 3),
                new AccessControlEntry((byte) 2, "t", (byte) 3, "", "*", (byte) 3, (byte) 3),
                new AccessControlEntry((byte) 2, "t", (byte) 3, null, "*", (byte) 3, (byte) 3),
                new AccessControlEntry((byte) 2, "t", (byte) 3, "User:a", "", (byte) 3, (byte) 3),
                new AccessControlEntry((byte) 2, "t", (byte) 3, "User:a", null, (byte) 3, (byte) 3));
        // the bounds themselves apply
        image.apply(new AccessControlEntry((byte) 7, "u", (byte) 4, "User:a", "*", (byte) 15, (byte) 2));
        image.apply(new AccessControlEntry((byte) 2, "u", (byte) 3, "User:a", "*", (byte) 2, (byte) 3));
        assertThat(image.acls()).hasSize(3);
    }

    @Test
    void credentialsAreReplacedPerMechanismAndRemovedOnlyWhenPresent() {
        image.apply(credential("bob", 2, 4096));
        image.apply(credential("alice", 2, 4096));
        image.apply(credential("alice", 1, 4096));
        image.apply(credential("alice", 1, 8192));

        assertThat(image.scramCredentials()).containsExactly(credential("alice", 1, 8192), credential("alice", 2, 4096),
                credential("bob", 2, 4096));

        image.apply(new RemoveUserScramCredential("bob", (byte) 2));
        assertThat(image.scramCredentials()).extracting(UserScramCredential::user).containsExactly("alice", "alice");
        assertRejectedAndUnchanged(new RemoveUserScramCredential("bob", (byte) 2),
                new RemoveUserScramCredential("alice", (byte) 3), new RemoveUserScramCredential(null, (byte) 1),
                new RemoveUserScramCredential("carol", (byte) 1));
    }

    @Test
    void malformedCredentialsAreRejected() {
        image.apply(credential("kept", 1, 4096));
        byte[] some = {1};

        assertRejectedAndUnchanged(credential("", 1, 4096), credential(null, 1, 4096), credential("u", 0, 4096),
                credential("u", 3, 4096), credential("u", 1, 0), credential("u", 1, -5),
                new UserScramCredential("u", (byte) 1, 4096, new byte[0], some, some),
                new UserScramCredential("u", (byte) 1, 4096, some, new byte[0], some),
                new UserScramCredential("u", (byte) 1, 4096, some, some, new byte[0]));
    }

    @Test
    void tokensAreReplacedByIdSortedAndTheRemovalOfAnAbsentOneIsIgnored() {
        image.apply(token("b", "User:bob", 5_000));
        image.apply(token("a", "User:alice", 5_000));
        image.apply(token("a", "User:alice", 9_000));

        assertThat(image.delegationTokens()).as("a renewal replaces the token").containsExactly(
                token("a", "User:alice", 9_000), token("b", "User:bob", 5_000));

        image.apply(new RemoveDelegationToken("b"));
        long changes = image.securityChanges();
        image.apply(new RemoveDelegationToken("b"));
        image.apply(new RemoveDelegationToken("never-created"));
        assertThat(image.securityChanges()).as("removing an absent token applies").isEqualTo(changes + 2);
        assertThat(image.delegationTokens()).containsExactly(token("a", "User:alice", 9_000));
        assertThat(image.acls()).isEmpty();
        assertThat(image.scramCredentials()).isEmpty();
    }

    @Test
    void malformedTokensAndRemovalsAreRejected() {
        image.apply(token("kept", "User:alice", 5_000));

        assertRejectedAndUnchanged(
                token("", "User:alice", 5_000),
                token(null, "User:alice", 5_000),
                token("t", "", 5_000),
                token("t", null, 5_000),
                token("t", "alice", 5_000),
                new DelegationToken("t", "User:alice", null, List.of(), 1_000, 10_000, 5_000),
                new DelegationToken("t", "User:alice", "admin", List.of(), 1_000, 10_000, 5_000),
                new DelegationToken("t", "User:alice", "User:admin", List.of("bob"), 1_000, 10_000, 5_000),
                new DelegationToken("t", "User:alice", "User:admin", List.of("User:bob", ""), 1_000, 10_000, 5_000),
                token("t", "User:alice", 10_001),
                new DelegationToken("t", "User:alice", "User:admin", List.of(), 1_000, 999, 999),
                new DelegationToken("t", "User:alice", "User:admin", List.of(), -1, 10_000, 5_000),
                new RemoveDelegationToken(""),
                new RemoveDelegationToken(null));
        // a token may expire before its issue time (the expiring node's clock is behind), and at its maximum
        image.apply(token("early", "User:alice", 500));
        image.apply(new DelegationToken("t", "User:alice", "User:admin", List.of(), 0, 0, 0));
        assertThat(image.delegationTokens()).extracting(DelegationToken::tokenId).containsExactly("early", "kept", "t");
    }

    @Test
    void anExpiryMovesTheExpiryOfAHeldTokenWithinItsMaximum() {
        image.apply(token("a", "User:alice", 5_000));
        image.apply(token("b", "User:bob", 5_000));
        long changes = image.securityChanges();

        image.apply(new DelegationTokenExpiry("a", 9_000));
        image.apply(new DelegationTokenExpiry("b", 10_000));
        assertThat(image.delegationTokens()).as("up to the maximum, inclusive").containsExactly(
                token("a", "User:alice", 9_000), token("b", "User:bob", 10_000));
        image.apply(new DelegationTokenExpiry("b", 500));
        assertThat(image.delegationTokens()).as("earlier too, even before the issue time (a clock behind)")
                .containsExactly(token("a", "User:alice", 9_000), token("b", "User:bob", 500));
        assertThat(image.securityChanges()).isEqualTo(changes + 3);
    }

    @Test
    void anExpiryOfAnAbsentTokenOrBeyondItsMaximumIsRejected() {
        image.apply(token("a", "User:alice", 5_000));
        image.apply(token("gone", "User:bob", 5_000));
        image.apply(new RemoveDelegationToken("gone"));

        assertRejectedAndUnchanged(
                new DelegationTokenExpiry("gone", 9_000),
                new DelegationTokenExpiry("never-created", 9_000),
                new DelegationTokenExpiry("", 9_000),
                new DelegationTokenExpiry(null, 9_000),
                new DelegationTokenExpiry("a", 10_001),
                new DelegationTokenExpiry("a", Long.MAX_VALUE));
        assertThat(image.delegationTokens()).containsExactly(token("a", "User:alice", 5_000));
    }

    @Test
    void aRenewalAppliedAfterTheTokensRemovalDoesNotBringItBack() {
        image.apply(token("t", "User:alice", 5_000));

        // node B's removal reached the log first, node A's renewal second
        assertThat(image.applyBatch(List.of(new RemoveDelegationToken("t")))).containsExactly(true);
        assertThat(image.applyBatch(List.of(new DelegationTokenExpiry("t", 9_000)))).containsExactly(false);
        assertThat(image.delegationTokens()).isEmpty();

        // in the other order both apply, and the token is gone as well
        image.apply(token("u", "User:alice", 5_000));
        assertThat(image.applyBatch(List.of(new DelegationTokenExpiry("u", 9_000), new RemoveDelegationToken("u"))))
                .containsExactly(true, true);
        assertThat(image.delegationTokens()).isEmpty();
    }

    @Test
    void quotasAreSetPerEntityAndKeyAndANullValueRemovesTheKey() {
        image.apply(quota("alice", "app", "producer_byte_rate", 1000.0));
        image.apply(quota("alice", "app", "consumer_byte_rate", 2000.0));
        image.apply(entityQuota("request_percentage", 50.0, "user", null));
        image.apply(entityQuota("connection_creation_rate", 5.0, "ip", "10.0.0.1"));
        image.apply(entityQuota("connection_creation_rate", 7.0, "ip", null));
        image.apply(quota("alice", "app", "producer_byte_rate", 1500.0));

        assertThat(image.clientQuotas()).containsExactly(
                quota("alice", "app", "consumer_byte_rate", 2000.0),
                quota("alice", "app", "producer_byte_rate", 1500.0),
                entityQuota("connection_creation_rate", 7.0, "ip", null),
                entityQuota("connection_creation_rate", 5.0, "ip", "10.0.0.1"),
                entityQuota("request_percentage", 50.0, "user", null));

        image.apply(quota("alice", "app", "producer_byte_rate", null));
        image.apply(quota("alice", "app", "consumer_byte_rate", null));
        long changes = image.securityChanges();
        image.apply(quota("alice", "app", "consumer_byte_rate", null));
        image.apply(entityQuota("k", null, "user", "nobody"));
        assertThat(image.securityChanges()).as("removing an absent key applies").isEqualTo(changes + 2);
        assertThat(image.clientQuotas()).extracting(ClientQuota::entity).as("alice's entity is gone with its keys")
                .noneMatch(e -> "alice".equals(e.get("user")));
        assertThat(image.clientQuotas()).hasSize(3);
    }

    @Test
    void malformedQuotasAreRejected() {
        image.apply(quota("kept", null, "producer_byte_rate", 1.0));

        assertRejectedAndUnchanged(
                entityQuota("k", 1.0),
                entityQuota("k", 1.0, "group", "g"),
                entityQuota("k", 1.0, "ip", "1.2.3.4", "user", "u"),
                entityQuota("k", 1.0, "ip", null, "client-id", null),
                entityQuota("k", 1.0, "user", ""),
                entityQuota("k", null, "user", ""),
                entityQuota("", 1.0, "user", "u"),
                entityQuota(null, 1.0, "user", "u"),
                entityQuota("k", -1.0, "user", "u"),
                entityQuota("k", Double.NaN, "user", "u"),
                entityQuota("k", Double.POSITIVE_INFINITY, "user", "u"));
        image.apply(entityQuota("k", 0.0, "user", "u"));
        assertThat(image.clientQuotas()).hasSize(2);
    }

    @Test
    void groupSettingsAreSetReplacedPerKeyAndANullValueRemovesTheKey() {
        image.apply(new GroupConfig("orders", "consumer.session.timeout.ms", "50000"));
        image.apply(new GroupConfig("billing", "consumer.heartbeat.interval.ms", "3000"));
        image.apply(new GroupConfig("orders", "consumer.heartbeat.interval.ms", "4000"));
        image.apply(new GroupConfig("orders", "consumer.session.timeout.ms", "60000"));

        assertThat(image.groupConfigs()).as("sorted by group, then key; a set key is replaced").isEqualTo(Map.of(
                "billing", Map.of("consumer.heartbeat.interval.ms", "3000"),
                "orders", Map.of("consumer.heartbeat.interval.ms", "4000", "consumer.session.timeout.ms", "60000")));
        assertThat(image.groupConfigs().keySet()).containsExactly("billing", "orders");
        assertThat(image.groupConfigs().get("orders").keySet()).containsExactly("consumer.heartbeat.interval.ms",
                "consumer.session.timeout.ms");

        image.apply(new GroupConfig("billing", "consumer.heartbeat.interval.ms", null));
        assertThat(image.groupConfigs()).as("a group whose last key is removed is gone").containsOnlyKeys("orders");
        long changes = image.securityChanges();
        image.apply(new GroupConfig("billing", "consumer.heartbeat.interval.ms", null));
        image.apply(new GroupConfig("orders", "consumer.group.rack", null));
        image.apply(new GroupConfig("never-configured", "consumer.session.timeout.ms", null));
        assertThat(image.securityChanges()).as("removing an absent key applies").isEqualTo(changes + 3);
        assertThat(image.groupConfigs()).isEqualTo(Map.of(
                "orders", Map.of("consumer.heartbeat.interval.ms", "4000", "consumer.session.timeout.ms", "60000")));
        assertThat(image.clientQuotas()).isEmpty();
    }

    @Test
    void groupSettingsWithoutAGroupOrAKeyAreRejectedAndValuesAreKeptAsWritten() {
        image.apply(new GroupConfig("kept", "consumer.session.timeout.ms", "45000"));

        assertRejectedAndUnchanged(
                new GroupConfig("", "consumer.session.timeout.ms", "50000"),
                new GroupConfig(null, "consumer.session.timeout.ms", "50000"),
                new GroupConfig("g", "", "50000"),
                new GroupConfig("g", null, "50000"),
                new GroupConfig("", "consumer.session.timeout.ms", null),
                new GroupConfig("kept", null, null));
        // the broker checks keys and values before it writes them: the image stores the strings
        image.apply(new GroupConfig("g", "some.key", ""));
        image.apply(new GroupConfig("g", "other.key", "not a number"));
        assertThat(image.groupConfigs().get("g")).isEqualTo(Map.of("some.key", "", "other.key", "not a number"));
    }

    @Test
    void groupSettingsAreReadOnlyCopies() {
        image.apply(new GroupConfig("g", "k", "1"));
        Map<String, ? extends Map<String, String>> before = image.groupConfigs();
        image.apply(new GroupConfig("g", "k", "2"));
        image.apply(new GroupConfig("h", "k", "3"));

        assertThat(before).isEqualTo(Map.of("g", Map.of("k", "1")));
        assertThatThrownBy(() -> image.groupConfigs().clear()).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> image.groupConfigs().get("g").put("k", "4"))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void aSnapshotRebuildsTheSecurityStateButNotTheCounter() {
        image.apply(acl("t", "User:a", (byte) 3));
        image.apply(acl("t", "User:a", (byte) 3));
        image.apply(credential("alice", 1, 4096));
        image.apply(credential("alice", 2, 8192));
        image.apply(quota("alice", null, "producer_byte_rate", 1024.0));
        image.apply(entityQuota("connection_creation_rate", 3.0, "ip", null));
        image.apply(token("tok-2", "User:bob", 4_000));
        image.apply(token("tok-1", "User:alice", 4_000));
        image.apply(new DelegationTokenExpiry("tok-1", 8_000)); // the snapshot carries it in the token
        image.apply(new RemoveDelegationToken("tok-3"));
        image.apply(new GroupConfig("orders", "consumer.session.timeout.ms", "50000"));
        image.apply(new GroupConfig("billing", "consumer.heartbeat.interval.ms", "3000"));
        image.apply(new GroupConfig("billing", "consumer.session.timeout.ms", "45000"));
        image.apply(new GroupConfig("billing", "consumer.session.timeout.ms", null));
        image.apply(new MetadataRecord.Config(MetadataRecord.RESOURCE_BROKER, "1", "k", "v"));

        List<MetadataRecord> snapshot = image.toRecords();
        MetadataImage rebuilt = new MetadataImage();
        List<MetadataRecord> decoded = MetadataCodec.decodeBatch(ByteBuffer.wrap(MetadataCodec.encodeBatch(snapshot)));
        assertThat(rebuilt.applyBatch(decoded)).doesNotContain(false);

        assertThat(rebuilt).isEqualTo(image).hasSameHashCodeAs(image);
        assertThat(rebuilt.toRecords()).isEqualTo(snapshot);
        assertThat(snapshot).extracting(MetadataRecord::type).as("after the configs").containsExactly(
                MetadataRecord.CONFIG, MetadataRecord.ACCESS_CONTROL_ENTRY, MetadataRecord.USER_SCRAM_CREDENTIAL,
                MetadataRecord.USER_SCRAM_CREDENTIAL, MetadataRecord.CLIENT_QUOTA, MetadataRecord.CLIENT_QUOTA,
                MetadataRecord.DELEGATION_TOKEN, MetadataRecord.DELEGATION_TOKEN, MetadataRecord.GROUP_CONFIG,
                MetadataRecord.GROUP_CONFIG);
        assertThat(snapshot).filteredOn(r -> r instanceof GroupConfig).as("group by group, key by key")
                .containsExactly(
                new GroupConfig("billing", "consumer.heartbeat.interval.ms", "3000"),
                new GroupConfig("orders", "consumer.session.timeout.ms", "50000"));
        assertThat(rebuilt.acls()).isEqualTo(image.acls());
        assertThat(rebuilt.scramCredentials()).isEqualTo(image.scramCredentials());
        assertThat(rebuilt.clientQuotas()).isEqualTo(image.clientQuotas());
        assertThat(rebuilt.delegationTokens()).isEqualTo(image.delegationTokens())
                .containsExactly(token("tok-1", "User:alice", 8_000), token("tok-2", "User:bob", 4_000));
        assertThat(rebuilt.groupConfigs()).isEqualTo(image.groupConfigs()).hasSize(2);
        assertThat(image.securityChanges()).isEqualTo(14);
        assertThat(rebuilt.securityChanges()).as("one per record of the snapshot").isEqualTo(9);
    }

    @Test
    void theAccessorsAreCopies() {
        image.apply(acl("t", "User:a", (byte) 3));
        List<AccessControlEntry> acls = image.acls();
        image.apply(acl("u", "User:a", (byte) 3));

        assertThat(acls).hasSize(1);
        assertThatThrownBy(() -> image.acls().clear()).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> image.scramCredentials().clear()).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> image.clientQuotas().clear()).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> image.delegationTokens().clear()).isInstanceOf(UnsupportedOperationException.class);
        assertThat(new ArrayList<>(image.acls())).hasSize(2);
    }
}
