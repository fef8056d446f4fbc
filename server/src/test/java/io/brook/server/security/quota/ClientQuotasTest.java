package io.brook.server.security.quota;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.security.quota.QuotaEntity.Name;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which quota applies to whom, who shares a rate, and the settings surviving a restart. */
class ClientQuotasTest {

    private final AtomicLong now = new AtomicLong(1_000_000);
    private final ClientQuotaStore store = ClientQuotaStore.inMemory();
    private final ClientQuotas quotas = new ClientQuotas(store, 11, 1000, now::get);

    private void set(Name user, Name client, QuotaKey key, double value) throws Exception {
        store.apply(List.of(new ClientQuotaStore.Change(new QuotaEntity(user, client, null), key, value))).join();
    }

    @Test
    void withoutQuotasNothingIsThrottled() {
        assertThat(quotas.produced("User:alice", "c", Long.MAX_VALUE / 2)).isZero();
        assertThat(quotas.fetched("User:alice", "c", Long.MAX_VALUE / 2)).isZero();
    }

    @Test
    void aUserQuotaIsSharedByTheUsersClients() throws Exception {
        set(Name.of("alice"), null, QuotaKey.PRODUCER_BYTE_RATE, 1000);
        assertThat(quotas.produced("User:alice", "one", 10_000)).isZero(); // 1000 B/s over 10 s: at the quota
        assertThat(quotas.produced("User:alice", "two", 10_000)).isEqualTo(10_000); // 2000 B/s together
        assertThat(quotas.produced("User:bob", "one", 1_000_000)).isZero(); // no quota for bob
        assertThat(quotas.fetched("User:alice", "one", 1_000_000)).isZero(); // a produce quota only
    }

    @Test
    void theMostSpecificEntityWinsAndDefaultsApplyPerName() throws Exception {
        set(Name.DEFAULT, null, QuotaKey.PRODUCER_BYTE_RATE, 1000);
        set(Name.of("alice"), Name.of("fast"), QuotaKey.PRODUCER_BYTE_RATE, 100_000);
        set(null, Name.of("fast"), QuotaKey.PRODUCER_BYTE_RATE, 10);
        assertThat(quotas.produced("User:alice", "fast", 500_000)).isZero(); // user and client id: 100 000
        assertThat(quotas.produced("User:alice", "slow", 10_000)).isZero(); // default user: alice's own rate
        assertThat(quotas.produced("User:bob", "slow", 10_000)).isZero(); // default user: bob's own rate
        assertThat(quotas.produced("User:bob", "slow", 10_000)).isEqualTo(10_000);
    }

    @Test
    void aChangeAppliesToTheNextRequestAndARemovalLiftsTheQuota() throws Exception {
        set(null, Name.DEFAULT, QuotaKey.CONSUMER_BYTE_RATE, 1000);
        assertThat(quotas.fetched("User:ANONYMOUS", "c", 20_000)).isEqualTo(10_000);
        store.apply(List.of(new ClientQuotaStore.Change(new QuotaEntity(null, Name.DEFAULT, null),
                QuotaKey.CONSUMER_BYTE_RATE, null))).join();
        assertThat(quotas.fetched("User:ANONYMOUS", "c", 20_000)).isZero();
        set(null, Name.DEFAULT, QuotaKey.CONSUMER_BYTE_RATE, 1_000_000);
        assertThat(quotas.fetched("User:ANONYMOUS", "c", 20_000)).isZero();
    }

    @Test
    void aConsumersFetchAnswerIsBoundedByWhatItsQuotaAllowsOverTheMeasuredSpan() throws Exception {
        assertThat(quotas.maxFetchBytes("User:alice", "c")).isEqualTo(Integer.MAX_VALUE);
        set(null, Name.of("c"), QuotaKey.CONSUMER_BYTE_RATE, 10_000);
        set(Name.of("bob"), null, QuotaKey.PRODUCER_BYTE_RATE, 1);
        assertThat(quotas.maxFetchBytes("User:alice", "c")).isEqualTo(100_000); // 10 000 B/s × 10 windows of 1 s
        assertThat(quotas.maxFetchBytes("User:alice", "other")).isEqualTo(Integer.MAX_VALUE);
        assertThat(quotas.maxFetchBytes("User:bob", "other")).isEqualTo(Integer.MAX_VALUE); // a produce quota only
    }

    @Test
    void settingsSurviveReopening(@TempDir Path dir) throws Exception {
        ClientQuotaStore s = ClientQuotaStore.open(dir);
        QuotaEntity both = new QuotaEntity(Name.of("a b=,+"), Name.DEFAULT, null);
        QuotaEntity ip = new QuotaEntity(null, null, Name.of("192.0.2.1"));
        s.apply(List.of(new ClientQuotaStore.Change(both, QuotaKey.PRODUCER_BYTE_RATE, 1024.0),
                new ClientQuotaStore.Change(both, QuotaKey.REQUEST_PERCENTAGE, 12.5),
                new ClientQuotaStore.Change(ip, QuotaKey.CONNECTION_CREATION_RATE, 5.0))).join();
        ClientQuotaStore again = ClientQuotaStore.open(dir);
        assertThat(again.all()).isEqualTo(s.all()).hasSize(2);
        assertThat(again.all().get(both)).containsEntry(QuotaKey.REQUEST_PERCENTAGE, 12.5);
    }

    @Test
    void requestPercentageChargesHandlerTimeAndThrottlesAtMostOneWindow() throws Exception {
        assertThat(quotas.requestTime("User:alice", "c", 1_000_000_000L)).as("no request quota set").isZero();
        set(null, Name.of("c"), QuotaKey.REQUEST_PERCENTAGE, 10); // a tenth of one thread
        // 1 s of thread time at once is 100 %-seconds over the 10 s measured: 10 %, at the quota
        assertThat(quotas.requestTime("User:alice", "c", 1_000_000_000L)).isZero();
        // another 0.5 s: 15 % against 10 % over 10 s asks 5 s away, capped at one window (1 s)
        assertThat(quotas.requestTime("User:alice", "c", 500_000_000L)).isEqualTo(1000);
        assertThat(quotas.produced("User:alice", "c", Long.MAX_VALUE / 2)).as("not a byte-rate quota").isZero();
        assertThat(quotas.requestTime("User:alice", "other", 10_000_000_000L)).as("another client id").isZero();
    }

    @Test
    void aClientThatWaitsOutItsThrottlesIsHeldNearItsRequestPercentage() throws Exception {
        set(null, Name.DEFAULT, QuotaKey.REQUEST_PERCENTAGE, 5);
        // each request costs 20 ms of a thread (2 %-seconds); unthrottled, the client would use 50 %
        long cost = 20_000_000L;
        long start = now.get();
        long busy = 0;
        while (now.get() - start < 120_000) {
            int throttle = quotas.requestTime("User:ANONYMOUS", "greedy", cost);
            busy += cost;
            now.addAndGet(40 + throttle); // 20 ms handling, 20 ms round trip, then the throttle (KIP-219)
        }
        double percent = busy / 1e7 / ((now.get() - start) / 1000.0);
        assertThat(percent).as("the thread time used, in percent").isBetween(4.5, 5.5);
    }

    @Test
    void connectionCreationRateIsPerAddressAndAThrottledConnectionIsNotCounted() throws Exception {
        assertThat(quotas.connectionCreated("192.0.2.1")).isZero();
        store.apply(List.of(new ClientQuotaStore.Change(new QuotaEntity(null, null, Name.DEFAULT),
                QuotaKey.CONNECTION_CREATION_RATE, 2.0))).join();
        store.apply(List.of(new ClientQuotaStore.Change(new QuotaEntity(null, null, Name.of("192.0.2.9")),
                QuotaKey.CONNECTION_CREATION_RATE, 100.0))).join();
        for (int i = 0; i < 20; i++) { // 2/s over the 10 s measured
            assertThat(quotas.connectionCreated("192.0.2.1")).isZero();
        }
        assertThat(quotas.connectionCreated("192.0.2.1")).isEqualTo(500); // (21 - 20) / 20 * 10 s
        assertThat(quotas.connectionCreated("192.0.2.1")).as("the refused one was not counted").isEqualTo(500);
        assertThat(quotas.connectionCreated("192.0.2.2")).as("the default applies per address").isZero();
        for (int i = 0; i < 100; i++) {
            assertThat(quotas.connectionCreated("192.0.2.9")).isZero();
        }
        now.addAndGet(11_000);
        assertThat(quotas.connectionCreated("192.0.2.1")).as("the windows passed").isZero();
    }

    @Test
    void ratesThatHoldNothingAreDroppedSoManyClientIdsLeaveNoTrace() throws Exception {
        set(null, Name.DEFAULT, QuotaKey.PRODUCER_BYTE_RATE, 1000);
        set(null, Name.DEFAULT, QuotaKey.CONTROLLER_MUTATION_RATE, 1);
        for (int i = 0; i < 1000; i++) {
            quotas.produced("User:ANONYMOUS", "client-" + i, 10);
            quotas.mutations("User:ANONYMOUS", "client-" + i, true).charge(1);
        }
        quotas.produced("User:ANONYMOUS", "slow", 20_000); // twice its quota over the measured 10 s
        MutationQuota inDebt = quotas.mutations("User:ANONYMOUS", "slow", false);
        inDebt.charge(100); // 89 tokens of debt at 1 a second
        assertThat(quotas.kept()).isEqualTo(2002);

        now.addAndGet(10_999);
        quotas.produced("User:ANONYMOUS", "other", 1);
        assertThat(quotas.kept()).as("every rate still holds a value 10.999 s old").isEqualTo(2003);

        now.addAndGet(1);
        quotas.produced("User:ANONYMOUS", "other", 1);
        assertThat(quotas.kept()).as("11 s on: the 1000 idle rates and full buckets are gone, not the debt")
                .isEqualTo(2);
        assertThat(quotas.mutations("User:ANONYMOUS", "slow", true).charge(1)).as("the debt is still owed")
                .isFalse();
        assertThat(quotas.mutations("User:ANONYMOUS", "client-7", true).charge(11)).as("a new, full bucket")
                .isTrue();
    }
}
