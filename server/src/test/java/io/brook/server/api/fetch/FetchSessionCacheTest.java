package io.brook.server.api.fetch;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.wire.message.FetchRequest.FetchPartition;
import io.brook.wire.message.FetchResponse.PartitionData;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The session cache's life cycle on explicit times: creation, use, closing, and Kafka's eviction
 * (a stale least recently used session first, else an older and smaller one, else none); and a
 * session's partitions: updates, removal, and the rotation of partitions that returned records.
 */
class FetchSessionCacheTest {

    private static final long EVICTION_MS = 100;
    private static final long UNBOUNDED = Long.MAX_VALUE;

    private static List<SessionPartition> partitions(int n) {
        List<SessionPartition> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(partition("t", i));
        }
        return out;
    }

    private static SessionPartition partition(String topic, int p) {
        return new SessionPartition(topic, new UUID(0, 0),
                new FetchPartition().partition(p).fetchOffset(0).partitionMaxBytes(1000));
    }

    @Test
    void shouldCreateSessionsWithDistinctPositiveIdsExpectingEpochOne() {
        FetchSessionCache cache = new FetchSessionCache(10, UNBOUNDED, EVICTION_MS);
        FetchSession a = cache.create(0, false, partitions(3));
        FetchSession b = cache.create(0, true, partitions(2));
        assertThat(a.id).isPositive().isNotEqualTo(b.id);
        assertThat(a.size()).isEqualTo(3);
        assertThat(b.byId).isTrue();
        synchronized (a) {
            assertThat(a.epoch()).isEqualTo(1);
        }
        assertThat(cache.get(a.id)).isSameAs(a);
        assertThat(cache.size()).isEqualTo(2);
    }

    @Test
    void shouldCreateNothingWithoutSlots() {
        assertThat(new FetchSessionCache(0, UNBOUNDED, EVICTION_MS).create(0, false, partitions(1))).isNull();
    }

    @Test
    void shouldForgetAClosedSession() {
        FetchSessionCache cache = new FetchSessionCache(10, UNBOUNDED, EVICTION_MS);
        FetchSession a = cache.create(0, false, partitions(1));
        assertThat(cache.remove(a.id)).isTrue();
        assertThat(cache.remove(a.id)).isFalse();
        assertThat(cache.get(a.id)).isNull();
        assertThat(cache.size()).isZero();
    }

    @Test
    void shouldWrapTheEpochToOneAndKeepTheFinalEpochFinal() {
        assertThat(FetchSession.nextEpoch(0)).isEqualTo(1);
        assertThat(FetchSession.nextEpoch(41)).isEqualTo(42);
        assertThat(FetchSession.nextEpoch(Integer.MAX_VALUE)).isEqualTo(1);
        assertThat(FetchSession.nextEpoch(-1)).isEqualTo(-1);
    }

    @Test
    void shouldEvictNoSessionYoungerThanTheEvictionInterval() {
        FetchSessionCache cache = new FetchSessionCache(2, UNBOUNDED, EVICTION_MS);
        cache.create(0, false, partitions(1));
        cache.create(0, false, partitions(1));
        assertThat(cache.create(EVICTION_MS, false, partitions(1000))).isNull();
        assertThat(cache.size()).isEqualTo(2);
        assertThat(cache.evictions()).isZero();
    }

    @Test
    void shouldEvictTheLeastRecentlyUsedSessionOnceStaleWhateverItsSize() {
        FetchSessionCache cache = new FetchSessionCache(2, UNBOUNDED, EVICTION_MS);
        FetchSession big = cache.create(0, false, partitions(50));
        FetchSession used = cache.create(0, false, partitions(5));
        cache.touch(used, 150);
        FetchSession small = cache.create(150, false, partitions(1));
        assertThat(small).isNotNull();
        assertThat(cache.get(big.id)).as("unused for more than the interval").isNull();
        assertThat(cache.get(used.id)).isSameAs(used);
        assertThat(cache.evictions()).isEqualTo(1);
        assertThat(cache.partitions()).isEqualTo(6);
    }

    @Test
    void shouldEvictAnOlderSmallerSessionInUseOnlyForABiggerOne() {
        FetchSessionCache cache = new FetchSessionCache(2, UNBOUNDED, EVICTION_MS);
        FetchSession three = cache.create(0, false, partitions(3));
        FetchSession five = cache.create(0, false, partitions(5));
        cache.touch(three, 200);
        cache.touch(five, 200);
        assertThat(cache.create(210, false, partitions(3))).as("not bigger than the smallest").isNull();
        FetchSession four = cache.create(210, false, partitions(4));
        assertThat(four).isNotNull();
        assertThat(cache.get(three.id)).isNull();
        // the new session is young: the five-partition one is the only candidate, and 5 is not fewer than 5
        assertThat(cache.create(220, false, partitions(5))).isNull();
        assertThat(cache.get(five.id)).isSameAs(five);
        assertThat(cache.get(four.id)).isSameAs(four);
    }

    @Test
    void shouldKeepTheSessionsPartitionsWithinTheBound() {
        FetchSessionCache cache = new FetchSessionCache(10, 10, EVICTION_MS);
        FetchSession six = cache.create(0, false, partitions(6));
        assertThat(cache.create(0, false, partitions(5))).as("6 + 5 > 10").isNull();
        FetchSession four = cache.create(0, false, partitions(4));
        assertThat(cache.partitions()).isEqualTo(10);
        synchronized (six) {
            six.remove(SessionPartition.key(false, "t", null, 0));
        }
        assertThat(cache.touch(six, 1)).isTrue();
        assertThat(cache.partitions()).isEqualTo(9);
        synchronized (four) {
            four.add(partition("u", 0));
            four.add(partition("u", 1));
        }
        assertThat(cache.touch(four, 2)).as("grown past the bound").isFalse();
        assertThat(cache.get(four.id)).as("closed").isNull();
        assertThat(cache.partitions()).isEqualTo(5);
        assertThat(cache.remove(six.id)).isTrue();
        assertThat(cache.partitions()).isZero();
    }

    @Test
    void shouldUpdateAddForgetAndRotatePartitionsInOrder() {
        FetchSession s = new FetchSession(7, false, 0, partitions(3));
        synchronized (s) {
            SessionPartition t0 = s.get(SessionPartition.key(false, "t", null, 0));
            t0.update(new FetchPartition().partition(0).fetchOffset(42).partitionMaxBytes(10));
            assertThat(t0.fetchOffset).isEqualTo(42);
            assertThat(t0.partitionMaxBytes).isEqualTo(10);
            s.add(partition("u", 0));
            assertThat(s.remove(SessionPartition.key(false, "t", null, 1))).isTrue();
            assertThat(s.remove(SessionPartition.key(false, "t", null, 1))).isFalse();
            assertThat(s.size()).isEqualTo(3);
            s.moveToEnd(List.of(t0));
            assertThat(s.keys()).containsExactly(SessionPartition.key(false, "t", null, 2),
                    SessionPartition.key(false, "u", null, 0), SessionPartition.key(false, "t", null, 0));
        }
    }

    @Test
    void shouldKeySessionsByTopicIdFromVersion13() {
        UUID id = UUID.randomUUID();
        SessionPartition p = new SessionPartition("t", id, new FetchPartition().partition(3));
        assertThat(p.key(true)).isEqualTo(SessionPartition.key(true, "another name", id, 3));
        assertThat(p.key(false)).isNotEqualTo(SessionPartition.key(false, "another name", id, 3));
    }

    @Test
    void shouldAnswerAPartitionUntilTheClientWasToldItsState() {
        SessionPartition p = partition("t", 0);
        assertThat(p.mustAnswer(0, Errors.NONE, 0, 0)).as("never told").isTrue();
        p.answered(new PartitionData().highWatermark(5).logStartOffset(0));
        assertThat(p.mustAnswer(0, Errors.NONE, 5, 0)).isFalse();
        assertThat(p.mustAnswer(10, Errors.NONE, 5, 0)).as("records").isTrue();
        assertThat(p.mustAnswer(0, Errors.NONE, 6, 0)).as("high watermark").isTrue();
        assertThat(p.mustAnswer(0, Errors.NONE, 5, 1)).as("log start").isTrue();
        assertThat(p.mustAnswer(0, Errors.OFFSET_OUT_OF_RANGE, 5, 0)).as("error").isTrue();
        p.answered(new PartitionData()
                .errorCode(Errors.OFFSET_OUT_OF_RANGE.code()).highWatermark(5).logStartOffset(0));
        assertThat(p.mustAnswer(0, Errors.NONE, 5, 0)).as("after an error").isTrue();
    }
}
