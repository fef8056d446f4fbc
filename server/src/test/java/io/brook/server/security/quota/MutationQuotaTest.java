package io.brook.server.security.quota;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.security.quota.QuotaEntity.Name;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * controller_mutation_rate on a clock moved by hand: which quota applies, strict and permissive
 * decisions, and the throttle time they ask for.
 */
class MutationQuotaTest {

    private final AtomicLong now = new AtomicLong(1_000_000);
    private final ClientQuotaStore store = ClientQuotaStore.inMemory();
    private final ClientQuotas quotas = new ClientQuotas(store, 11, 1000, now::get);

    private void set(Name user, Name client, Double rate) throws Exception {
        store.apply(List.of(new ClientQuotaStore.Change(new QuotaEntity(user, client, null),
                QuotaKey.CONTROLLER_MUTATION_RATE, rate))).join();
    }

    @Test
    void withoutAQuotaEverythingIsDoneAndNothingThrottled() throws Exception {
        assertThat(quotas.mutations("User:alice", "c", true)).isSameAs(MutationQuota.UNLIMITED);
        store.apply(List.of(new ClientQuotaStore.Change(new QuotaEntity(Name.of("alice"), null, null),
                QuotaKey.PRODUCER_BYTE_RATE, 1.0))).join();
        MutationQuota q = quotas.mutations("User:alice", "c", true);
        assertThat(q).as("another kind of quota").isSameAs(MutationQuota.UNLIMITED);
        assertThat(q.charge(1_000_000)).isTrue();
        assertThat(q.throttleMs()).isZero();
    }

    @Test
    void strictRefusesOnlyOnceTheBucketIsBelowZero() throws Exception {
        set(Name.of("alice"), null, 2.0); // a burst of 2 × 11 × 1 s = 22
        MutationQuota q = quotas.mutations("User:alice", "c", true);
        assertThat(q.charge(10)).isTrue(); // 12 left
        assertThat(q.charge(10)).isTrue(); // 2 left
        assertThat(q.charge(5)).as("done in full, though it takes the bucket below zero").isTrue(); // -3
        assertThat(q.throttleMs()).as("nothing refused yet: Kafka throttles a strict request only then").isZero();
        assertThat(q.charge(1)).as("the bucket is below zero").isFalse();
        assertThat(q.throttleMs()).isEqualTo(1_500); // 3 tokens at 2/s
        now.addAndGet(500);
        assertThat(q.throttleMs()).as("less the time passed").isEqualTo(1_000);
        assertThat(q.charge(1)).as("refused, and not charged").isFalse();
        assertThat(q.throttleMs()).isEqualTo(1_000);

        MutationQuota next = quotas.mutations("User:alice", "other", true);
        assertThat(next.charge(1)).as("shared by the user's clients").isFalse();
        now.addAndGet(1_000);
        assertThat(next.charge(30)).as("back at zero: done").isTrue();
        assertThat(next.throttleMs()).isZero();
        assertThat(next.charge(1)).isFalse();
        assertThat(next.throttleMs()).isEqualTo(15_000);
        assertThat(quotas.mutations("User:bob", "c", true).charge(1_000)).as("no quota for bob").isTrue();
    }

    @Test
    void permissiveDoesEverythingAndThrottlesForTheDebt() throws Exception {
        set(null, Name.DEFAULT, 1.0); // each client id its own bucket of 11
        MutationQuota q = quotas.mutations("User:ANONYMOUS", "old", false);
        assertThat(q.charge(10)).isTrue();
        assertThat(q.throttleMs()).isZero();
        assertThat(q.charge(10)).isTrue(); // -9
        assertThat(q.throttleMs()).isEqualTo(9_000);
        assertThat(q.charge(10)).as("never refused").isTrue(); // -19
        assertThat(q.throttleMs()).isEqualTo(19_000);
        assertThat(quotas.mutations("User:ANONYMOUS", "old", true).charge(1)).as("a strict request now").isFalse();
        MutationQuota other = quotas.mutations("User:ANONYMOUS", "another", false);
        assertThat(other.charge(11)).as("another client id, its own bucket").isTrue();
        assertThat(other.throttleMs()).isZero();
    }

    @Test
    void theMostSpecificEntityWinsAndChangesApplyToTheNextRequest() throws Exception {
        set(Name.DEFAULT, null, 1.0);
        set(Name.of("alice"), Name.of("tool"), 100.0);
        assertThat(quotas.mutations("User:alice", "tool", true).charge(1_100)).isTrue(); // burst 1100
        assertThat(quotas.mutations("User:alice", "tool", true).charge(1)).isTrue(); // 0 is not below zero
        assertThat(quotas.mutations("User:alice", "tool", true).charge(1)).isFalse();
        MutationQuota alice = quotas.mutations("User:alice", "app", true);
        assertThat(alice.charge(12)).as("default user: alice's own bucket of 11").isTrue();
        assertThat(alice.charge(1)).isFalse();
        assertThat(quotas.mutations("User:bob", "app", true).charge(11)).as("bob's own").isTrue();

        set(Name.DEFAULT, null, null);
        assertThat(quotas.mutations("User:alice", "app", true)).as("removed").isSameAs(MutationQuota.UNLIMITED);
        set(Name.DEFAULT, null, 1000.0);
        MutationQuota raised = quotas.mutations("User:alice", "app", true);
        assertThat(raised.charge(1)).as("the debt carries over").isFalse();
        now.addAndGet(1);
        assertThat(raised.charge(1)).as("repaid at the new rate within a millisecond").isTrue();
    }

    @Test
    void theBurstFollowsTheWindowSettings() throws Exception {
        ClientQuotas two = new ClientQuotas(store, 2, 500, now::get); // 2 windows of 0.5 s: a burst of 1 s
        set(null, Name.of("c"), 10.0);
        MutationQuota q = two.mutations("User:ANONYMOUS", "c", false);
        q.charge(10);
        assertThat(q.throttleMs()).isZero();
        q.charge(1);
        assertThat(q.throttleMs()).isEqualTo(100);
    }
}
