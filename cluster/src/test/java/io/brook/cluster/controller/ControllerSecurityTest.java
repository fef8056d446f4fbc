package io.brook.cluster.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.cluster.metadata.MetadataImage;
import io.brook.cluster.metadata.MetadataRecord;
import io.brook.cluster.metadata.MetadataRecord.AccessControlEntry;
import io.brook.cluster.metadata.MetadataRecord.RemoveAccessControlEntry;
import io.brook.cluster.metadata.MetadataRecord.RemoveUserScramCredential;
import io.brook.cluster.metadata.MetadataRecord.UserScramCredential;
import io.brook.testkit.MutableClock;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** Security writes through the controller: one log entry, per-record outcomes, other records refused. */
class ControllerSecurityTest {

    private static final AccessControlEntry ACL = new AccessControlEntry((byte) 2, "orders", (byte) 3, "User:alice",
            "*", (byte) 3, (byte) 3);
    private static final UserScramCredential CREDENTIAL = new UserScramCredential("alice", (byte) 1, 4096,
            new byte[] {1}, new byte[] {2}, new byte[] {3});

    private final ImageLog log = new ImageLog();
    private final Controller controller = new Controller(new MutableClock(1_000_000),
            Controller.DEFAULT_SESSION_TIMEOUT_MS, log, () -> new UUID(7, 1));

    @Test
    void recordsAreWrittenAsOneEntryAndEachSaysWhetherItApplied() {
        TreeMap<String, String> entity = new TreeMap<>();
        entity.put("user", null);
        List<MetadataRecord> records = List.of(ACL, CREDENTIAL,
                new MetadataRecord.ClientQuota(entity, "producer_byte_rate", 1024.0),
                RemoveAccessControlEntry.of(new AccessControlEntry((byte) 2, "other", (byte) 3, "User:bob", "*",
                        (byte) 3, (byte) 3)),
                new RemoveUserScramCredential("bob", (byte) 1),
                ACL);

        assertThat(controller.writeSecurity(records).join()).containsExactly(true, true, true, false, false, true);

        assertThat(log.batches).containsExactly(records);
        assertThat(log.read(MetadataImage::acls)).containsExactly(ACL);
        assertThat(log.read(MetadataImage::scramCredentials)).containsExactly(CREDENTIAL);
        assertThat(log.read(MetadataImage::clientQuotas)).hasSize(1);
        assertThat(log.<Long>read(MetadataImage::securityChanges)).isEqualTo(4);
    }

    @Test
    void tokensAreSecurityRecordsTheRemovalOfAnAbsentOneAppliesItsNewExpiryDoesNot() {
        MetadataRecord.DelegationToken token = new MetadataRecord.DelegationToken("tok", "User:alice", "User:alice",
                List.of(), 1_000, 9_000, 5_000);
        List<MetadataRecord> records = List.of(token, new MetadataRecord.RemoveDelegationToken("absent"),
                new MetadataRecord.DelegationToken("", "User:alice", "User:alice", List.of(), 1_000, 9_000, 5_000));

        assertThat(controller.writeSecurity(records).join()).containsExactly(true, true, false);
        assertThat(log.batches).containsExactly(records);
        assertThat(log.read(MetadataImage::delegationTokens)).containsExactly(token);

        List<MetadataRecord> expiries = List.of(new MetadataRecord.DelegationTokenExpiry("tok", 8_000),
                new MetadataRecord.DelegationTokenExpiry("absent", 8_000),
                new MetadataRecord.DelegationTokenExpiry("tok", 9_001));
        assertThat(controller.writeSecurity(expiries).join()).as("an expiry of an absent token or beyond the maximum"
                + " does not apply").containsExactly(true, false, false);
        assertThat(log.batches).containsExactly(records, expiries);
        assertThat(log.read(MetadataImage::delegationTokens)).containsExactly(new MetadataRecord.DelegationToken("tok",
                "User:alice", "User:alice", List.of(), 1_000, 9_000, 8_000));
    }

    @Test
    void groupSettingsAreWrittenLikeTheSecurityRecordsAndAnEmptyGroupDoesNotApply() {
        List<MetadataRecord> records = List.of(
                new MetadataRecord.GroupConfig("orders", "consumer.session.timeout.ms", "50000"),
                new MetadataRecord.GroupConfig("orders", "consumer.heartbeat.interval.ms", null),
                new MetadataRecord.GroupConfig("", "consumer.session.timeout.ms", "50000"));

        assertThat(controller.writeSecurity(records).join()).as("removing an absent key applies")
                .containsExactly(true, true, false);
        assertThat(log.batches).containsExactly(records);
        assertThat(log.read(MetadataImage::groupConfigs)).isEqualTo(Map.of("orders",
                Map.of("consumer.session.timeout.ms", "50000")));
    }

    @Test
    void aRecordOfAnotherTypeIsRefusedAndNothingIsWritten() {
        List<MetadataRecord> mixed = List.of(ACL, new MetadataRecord.Config(MetadataRecord.RESOURCE_BROKER, "1", "k",
                "v"));

        assertThatThrownBy(() -> controller.writeSecurity(mixed).join()).isInstanceOf(CompletionException.class)
                .cause().isInstanceOf(ControllerException.class).hasMessageContaining("not a security record")
                .satisfies(e -> assertThat(((ControllerException) e).error()).isEqualTo(ControllerError.INVALID_REQUEST));
        assertThat(log.batches).isEmpty();
        assertThat(log.read(MetadataImage::acls)).isEmpty();
    }

    @Test
    void tooManyRecordsAreRefusedAndNoneWriteNothing() {
        List<MetadataRecord> tooMany = Collections.nCopies(Controller.MAX_SECURITY_RECORDS + 1, ACL);

        assertThatThrownBy(() -> controller.writeSecurity(tooMany).join()).cause()
                .isInstanceOf(ControllerException.class).hasMessageContaining("at most 10000");
        assertThat(controller.writeSecurity(List.of()).join()).isEmpty();
        assertThat(log.batches).isEmpty();
    }
}
