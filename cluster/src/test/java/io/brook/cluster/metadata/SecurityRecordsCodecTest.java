package io.brook.cluster.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.cluster.metadata.MetadataRecord.AccessControlEntry;
import io.brook.cluster.metadata.MetadataRecord.ClientQuota;
import io.brook.cluster.metadata.MetadataRecord.DelegationToken;
import io.brook.cluster.metadata.MetadataRecord.DelegationTokenExpiry;
import io.brook.cluster.metadata.MetadataRecord.GroupConfig;
import io.brook.cluster.metadata.MetadataRecord.RemoveAccessControlEntry;
import io.brook.cluster.metadata.MetadataRecord.RemoveDelegationToken;
import io.brook.cluster.metadata.MetadataRecord.UserScramCredential;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The security records (types 14 to 22) in the metadata format: what they carry and what decoding refuses. */
class SecurityRecordsCodecTest {

    /** A quota of the entity of that user and client id (null: the default; both null: the ip default). */
    static ClientQuota quota(String user, String clientId, String key, Double value) {
        TreeMap<String, String> entity = new TreeMap<>();
        if (user == null && clientId == null) {
            entity.put("ip", null);
        } else {
            entity.put("user", user);
            entity.put("client-id", clientId);
        }
        return new ClientQuota(entity, key, value);
    }

    private static List<MetadataRecord> roundTrip(MetadataRecord... records) {
        return MetadataCodec.decodeBatch(ByteBuffer.wrap(MetadataCodec.encodeBatch(List.of(records))));
    }

    @Test
    void recordsWithNullsAndEmptyArraysRoundTrip() {
        List<MetadataRecord> records = List.of(
                new AccessControlEntry((byte) 2, null, (byte) 3, null, null, (byte) 2, (byte) 3),
                new UserScramCredential(null, (byte) 9, -1, new byte[0], new byte[0], new byte[0]),
                new MetadataRecord.RemoveUserScramCredential(null, (byte) 1),
                new ClientQuota(new TreeMap<>(), null, null),
                quota("u", null, "consumer_byte_rate", Double.MAX_VALUE),
                new DelegationToken(null, null, null, List.of(), -1, Long.MIN_VALUE, Long.MAX_VALUE),
                new DelegationToken("", "", "", List.of("", "User:é"), 0, 0, 0),
                new RemoveDelegationToken(null),
                new RemoveDelegationToken("tok"),
                new DelegationTokenExpiry(null, Long.MIN_VALUE),
                new DelegationTokenExpiry("", Long.MAX_VALUE),
                new DelegationTokenExpiry("tok-\u00e9", 86_401_000L),
                new GroupConfig(null, null, null),
                new GroupConfig("", "", ""),
                new GroupConfig("gr\u00fcppe", "consumer.session.timeout.ms", "45000"),
                new GroupConfig("g", "consumer.heartbeat.interval.ms", null));

        assertThat(roundTrip(records.toArray(MetadataRecord[]::new))).isEqualTo(records);
    }

    @Test
    void theRemovalOfAnAclNamesItsEntry() {
        AccessControlEntry e = new AccessControlEntry((byte) 2, "t", (byte) 4, "User:a", "*", (byte) 3, (byte) 3);

        assertThat(RemoveAccessControlEntry.of(e).entry()).isEqualTo(e);
        assertThat(RemoveAccessControlEntry.of(e)).isEqualTo(
                new RemoveAccessControlEntry((byte) 2, "t", (byte) 4, "User:a", "*", (byte) 3, (byte) 3));
    }

    @Test
    void aCredentialCopiesItsArraysComparesThemByContentAndNeverPrintsThem() {
        byte[] salt = {1, 2, 3};
        UserScramCredential c = new UserScramCredential("alice", (byte) 1, 4096, salt, new byte[] {42, 43},
                new byte[] {44});
        salt[0] = 9;
        c.storedKey()[0] = 9;

        assertThat(c.salt()).containsExactly(1, 2, 3);
        assertThat(c.storedKey()).containsExactly(42, 43);
        UserScramCredential same = new UserScramCredential("alice", (byte) 1, 4096, new byte[] {1, 2, 3},
                new byte[] {42, 43}, new byte[] {44});
        assertThat(c).isEqualTo(same).hasSameHashCodeAs(same)
                .isNotEqualTo(new UserScramCredential("alice", (byte) 1, 4096, new byte[] {1, 2, 3},
                        new byte[] {42, 43}, new byte[] {45}));
        assertThat(c.toString()).contains("alice", "4096").doesNotContain("42", "44", "[1, 2, 3]");
    }

    @Test
    void aTokenCopiesItsRenewersAndRefusesANullOne() {
        List<String> renewers = new ArrayList<>(List.of("User:bob"));
        DelegationToken t = new DelegationToken("tok", "User:alice", "User:alice", renewers, 1, 3, 2);
        renewers.add("User:carol");

        assertThat(t.renewers()).containsExactly("User:bob");
        assertThatThrownBy(() -> t.renewers().add("User:x")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> new DelegationToken("tok", "User:alice", "User:alice", Arrays.asList("User:b", null),
                1, 3, 2)).isInstanceOf(NullPointerException.class);
        assertThat(t).isEqualTo(new DelegationToken("tok", "User:alice", "User:alice", List.of("User:bob"), 1, 3, 2))
                .isNotEqualTo(new DelegationToken("tok", "User:alice", "User:alice", List.of("User:bob"), 1, 3, 3));
    }

    @Test
    void aTokenRenewerCountBeyondThePayloadOrNegativeIsRefusedBeforeAllocating() {
        ByteBuffer payload = ByteBuffer.allocate(3 * (2 + 3) + 4 + 3 * 8);
        putString(payload, "tok");
        putString(payload, "U:a");
        putString(payload, "U:a");
        payload.putInt(Integer.MAX_VALUE).putLong(1).putLong(3).putLong(2).flip();
        assertThatThrownBy(() -> MetadataCodec.decodeBatch(batchOf(MetadataRecord.DELEGATION_TOKEN, payload)))
                .isInstanceOf(CorruptMetadataException.class)
                .hasMessageContaining("tried to read 2147483647 token renewers");

        payload.putInt(3 * (2 + 3), -1).rewind();
        assertThatThrownBy(() -> MetadataCodec.decodeBatch(batchOf(MetadataRecord.DELEGATION_TOKEN, payload)))
                .isInstanceOf(CorruptMetadataException.class)
                .hasMessageContaining("token renewers has a negative count");
    }

    @Test
    void aNullTokenRenewerIsRefused() {
        ByteBuffer payload = ByteBuffer.allocate(3 * (2 + 3) + 4 + 2 + 3 * 8);
        putString(payload, "tok");
        putString(payload, "U:a");
        putString(payload, "U:a");
        payload.putInt(1).putShort((short) -1).putLong(1).putLong(3).putLong(2).flip();

        assertThatThrownBy(() -> MetadataCodec.decodeBatch(batchOf(MetadataRecord.DELEGATION_TOKEN, payload)))
                .isInstanceOf(CorruptMetadataException.class).hasMessageContaining("token renewer is null");
    }

    @Test
    void aTokenRemovalWithBytesLeftOverIsRefused() {
        ByteBuffer payload = ByteBuffer.allocate(2 + 3 + 1);
        putString(payload, "tok");
        payload.put((byte) 0).flip();

        assertThatThrownBy(() -> MetadataCodec.decodeBatch(batchOf(MetadataRecord.REMOVE_DELEGATION_TOKEN, payload)))
                .isInstanceOf(CorruptMetadataException.class).hasMessageContaining("1 unread payload bytes");
    }

    @Test
    void aTokenExpiryIsItsIdThenItsTimeAndNothingMore() {
        byte[] bytes = MetadataCodec.encodeBatch(List.of(new DelegationTokenExpiry("tok", 0x0102030405060708L)));
        ByteBuffer expected = ByteBuffer.allocate(2 + 3 + 8);
        putString(expected, "tok");
        expected.putLong(0x0102030405060708L).flip();
        assertThat(bytes).as("type 21, version 1, a payload of 13 bytes")
                .isEqualTo(batchOf(MetadataRecord.DELEGATION_TOKEN_EXPIRY, expected).array());

        ByteBuffer longer = ByteBuffer.allocate(2 + 3 + 8 + 1);
        putString(longer, "tok");
        longer.putLong(5).put((byte) 0).flip();
        assertThatThrownBy(() -> MetadataCodec.decodeBatch(batchOf(MetadataRecord.DELEGATION_TOKEN_EXPIRY, longer)))
                .isInstanceOf(CorruptMetadataException.class).hasMessageContaining("1 unread payload bytes");

        ByteBuffer shorter = ByteBuffer.allocate(2 + 3 + 7);
        putString(shorter, "tok");
        shorter.put(new byte[7]).flip();
        assertThatThrownBy(() -> MetadataCodec.decodeBatch(batchOf(MetadataRecord.DELEGATION_TOKEN_EXPIRY, shorter)))
                .isInstanceOf(CorruptMetadataException.class).hasMessageContaining("token expiry time needs 8 bytes");

        ByteBuffer idTooLong = ByteBuffer.allocate(2 + 3);
        idTooLong.putShort((short) 30).put(new byte[3]).flip();
        assertThatThrownBy(() -> MetadataCodec.decodeBatch(batchOf(MetadataRecord.DELEGATION_TOKEN_EXPIRY, idTooLong)))
                .isInstanceOf(CorruptMetadataException.class).hasMessageContaining("token id needs 30 bytes");
    }

    @Test
    void aTokenExpiryAndAGroupConfigAreSecurityRecordsTheGroupConfigTheLastOne() {
        assertThat(new DelegationTokenExpiry("t", 1).type()).isEqualTo((byte) 21);
        assertThat(new GroupConfig("g", "k", "v").type()).isEqualTo((byte) 22);
        assertThat(MetadataRecord.isSecurity(MetadataRecord.DELEGATION_TOKEN_EXPIRY)).isTrue();
        assertThat(MetadataRecord.isSecurity(MetadataRecord.REMOVE_DELEGATION_TOKEN)).isTrue();
        assertThat(MetadataRecord.isSecurity(MetadataRecord.GROUP_CONFIG)).isTrue();
        assertThat(MetadataRecord.isSecurity((byte) 23)).isFalse();
        assertThat(MetadataRecord.isSecurity(MetadataRecord.NODE_DIRECTORY)).isFalse();
    }

    @Test
    void aGroupConfigIsItsGroupKeyAndValueAndNothingMore() {
        byte[] bytes = MetadataCodec.encodeBatch(List.of(new GroupConfig("g1", "k", "50000")));
        ByteBuffer expected = ByteBuffer.allocate(2 + 2 + 2 + 1 + 2 + 5);
        putString(expected, "g1");
        putString(expected, "k");
        putString(expected, "50000");
        expected.flip();
        assertThat(bytes).as("type 22, version 1, a payload of 14 bytes")
                .isEqualTo(batchOf(MetadataRecord.GROUP_CONFIG, expected).array());

        ByteBuffer removal = ByteBuffer.allocate(2 + 2 + 2 + 1 + 2);
        putString(removal, "g1");
        putString(removal, "k");
        removal.putShort((short) -1).flip();
        assertThat(MetadataCodec.decodeBatch(batchOf(MetadataRecord.GROUP_CONFIG, removal)))
                .as("a length of -1 is a null value: the removal").containsExactly(new GroupConfig("g1", "k", null));

        ByteBuffer longer = ByteBuffer.allocate(2 + 2 + 2 + 1 + 2 + 1 + 1);
        putString(longer, "g1");
        putString(longer, "k");
        putString(longer, "v");
        longer.put((byte) 0).flip();
        assertThatThrownBy(() -> MetadataCodec.decodeBatch(batchOf(MetadataRecord.GROUP_CONFIG, longer)))
                .isInstanceOf(CorruptMetadataException.class).hasMessageContaining("1 unread payload bytes");

        ByteBuffer valueTooLong = ByteBuffer.allocate(2 + 2 + 2 + 1 + 2 + 3);
        putString(valueTooLong, "g1");
        putString(valueTooLong, "k");
        valueTooLong.putShort((short) 40).put(new byte[3]).flip();
        assertThatThrownBy(() -> MetadataCodec.decodeBatch(batchOf(MetadataRecord.GROUP_CONFIG, valueTooLong)))
                .isInstanceOf(CorruptMetadataException.class)
                .hasMessageContaining("group config value needs 40 bytes");

        ByteBuffer negative = ByteBuffer.allocate(2 + 2 + 2);
        putString(negative, "g1");
        negative.putShort((short) -7).flip();
        assertThatThrownBy(() -> MetadataCodec.decodeBatch(batchOf(MetadataRecord.GROUP_CONFIG, negative)))
                .isInstanceOf(CorruptMetadataException.class)
                .hasMessageContaining("group config key has a negative length");

        ByteBuffer noKey = ByteBuffer.allocate(2 + 2);
        putString(noKey, "g1");
        noKey.flip();
        assertThatThrownBy(() -> MetadataCodec.decodeBatch(batchOf(MetadataRecord.GROUP_CONFIG, noKey)))
                .isInstanceOf(CorruptMetadataException.class)
                .hasMessageContaining("group config key length needs 2 bytes");
    }

    @Test
    void aQuotaEntityIsCopiedSortedAndUnmodifiable() {
        TreeMap<String, String> entity = new TreeMap<>(java.util.Comparator.reverseOrder());
        entity.put("client-id", null);
        entity.put("user", "u");
        ClientQuota q = new ClientQuota(entity, "k", 1.0);
        entity.put("ip", "1.2.3.4");

        assertThat(q.entity().keySet()).containsExactly("client-id", "user");
        assertThatThrownBy(() -> q.entity().put("ip", "x")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> new ClientQuota(null, "k", 1.0)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void aByteArrayLongerThanWhatRemainsOrNegativeIsRefusedBeforeAllocating() {
        ByteBuffer payload = ByteBuffer.allocate(2 + 5 + 1 + 4 + 4 + 3);
        putString(payload, "alice");
        payload.put((byte) 1).putInt(4096).putInt(Integer.MAX_VALUE).put(new byte[3]).flip();
        assertThatThrownBy(() -> MetadataCodec.decodeBatch(batchOf(MetadataRecord.USER_SCRAM_CREDENTIAL, payload)))
                .isInstanceOf(CorruptMetadataException.class).hasMessageContaining("salt needs 2147483647 bytes");

        ByteBuffer negative = ByteBuffer.allocate(2 + 5 + 1 + 4 + 4);
        putString(negative, "alice");
        negative.put((byte) 1).putInt(4096).putInt(-1).flip();
        assertThatThrownBy(() -> MetadataCodec.decodeBatch(batchOf(MetadataRecord.USER_SCRAM_CREDENTIAL, negative)))
                .isInstanceOf(CorruptMetadataException.class).hasMessageContaining("salt has a negative length");
    }

    @Test
    void everyTruncationOfTheSecurityRecordsIsRefused() {
        byte[] bytes = MetadataCodec.encodeBatch(List.of(
                new AccessControlEntry((byte) 2, "t", (byte) 3, "User:a", "*", (byte) 3, (byte) 3),
                new UserScramCredential("alice", (byte) 2, 8192, new byte[] {1}, new byte[] {2, 3}, new byte[] {4}),
                quota("alice", null, "producer_byte_rate", 10.0),
                new DelegationToken("tok", "User:alice", "User:admin", List.of("User:bob", "User:carol"), 10, 30, 20),
                new RemoveDelegationToken("old"),
                new DelegationTokenExpiry("tok", 25),
                new GroupConfig("app", "consumer.session.timeout.ms", "50000"),
                new GroupConfig("app", "consumer.heartbeat.interval.ms", null)));
        for (int length = 0; length < bytes.length; length++) {
            ByteBuffer truncated = ByteBuffer.wrap(Arrays.copyOf(bytes, length));
            assertThatThrownBy(() -> MetadataCodec.decodeBatch(truncated)).as("cut to %d bytes", length)
                    .isInstanceOf(CorruptMetadataException.class);
        }
    }

    @Test
    void aQuotaValueFlagOtherThanZeroOrOneIsRefused() {
        ByteBuffer payload = ByteBuffer.allocate(4 + 2 + 4 + 2 + 1 + 2 + 1 + 1 + 8);
        payload.putInt(1);
        putString(payload, "user");
        putString(payload, "u");
        putString(payload, "k");
        payload.put((byte) 2).putDouble(1.0).flip();

        assertThatThrownBy(() -> MetadataCodec.decodeBatch(batchOf(MetadataRecord.CLIENT_QUOTA, payload)))
                .isInstanceOf(CorruptMetadataException.class).hasMessageContaining("quota value flag 2");
    }

    @Test
    void aQuotaEntityTypeTwiceIsRefused() {
        ByteBuffer payload = ByteBuffer.allocate(4 + 2 * (2 + 4 + 2 + 1) + 2 + 1 + 1);
        payload.putInt(2);
        putString(payload, "user");
        putString(payload, "a");
        putString(payload, "user");
        putString(payload, "b");
        putString(payload, "k");
        payload.put((byte) 0).flip();

        assertThatThrownBy(() -> MetadataCodec.decodeBatch(batchOf(MetadataRecord.CLIENT_QUOTA, payload)))
                .isInstanceOf(CorruptMetadataException.class).hasMessageContaining("'user' appears twice");
    }

    @Test
    void aNullQuotaEntityTypeIsRefused() {
        ByteBuffer payload = ByteBuffer.allocate(4 + 2 + 2 + 2 + 1 + 1);
        payload.putInt(1).putShort((short) -1).putShort((short) -1);
        putString(payload, "k");
        payload.put((byte) 0).flip();

        assertThatThrownBy(() -> MetadataCodec.decodeBatch(batchOf(MetadataRecord.CLIENT_QUOTA, payload)))
                .isInstanceOf(CorruptMetadataException.class).hasMessageContaining("quota entity type is null");
    }

    private static void putString(ByteBuffer b, String s) {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        b.putShort((short) bytes.length).put(bytes);
    }

    private static ByteBuffer batchOf(byte type, ByteBuffer payload) {
        ByteBuffer b = ByteBuffer.allocate(MetadataCodec.BATCH_HEADER_BYTES + MetadataCodec.RECORD_HEADER_BYTES
                + payload.remaining());
        b.put(MetadataCodec.MAGIC_0).put(MetadataCodec.MAGIC_1).put(MetadataCodec.FORMAT_VERSION).putInt(1)
                .put(type).put(MetadataCodec.RECORD_VERSION).putInt(payload.remaining()).put(payload).flip();
        return b;
    }
}
