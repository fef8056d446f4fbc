package io.brook.server.api.fetch;

import io.brook.server.metrics.BrokerMetrics;
import io.brook.server.metrics.TopicMetrics;
import io.brook.server.node.PartitionLeadership;
import io.brook.server.topic.Topic;
import io.brook.server.topic.Topics;
import io.brook.storage.AbortedTransaction;
import io.brook.storage.Log;
import io.brook.storage.LogReadResult;
import io.brook.wire.message.FetchResponse;
import io.brook.wire.message.FetchResponse.FetchableTopicResponse;
import io.brook.wire.message.FetchResponse.PartitionData;
import io.brook.wire.protocol.BufferRecords;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One pass over a fetch's partitions, in order: each partition's log is read within the
 * remaining byte budget and the answer is assembled. A full fetch answers every partition; an
 * incremental one only those that {@linkplain SessionPartition#mustAnswer must} be answered, and
 * builds nothing for the others: a session partition without news costs a topic lookup and a
 * log read that finds nothing (no file access, one small result object).
 *
 * <p>Nothing of the session changes here: a long poll may run several passes and answer only
 * the last, which {@link #commit} then records in the session.
 */
final class FetchPass {

    final List<FetchableTopicResponse> responses = new ArrayList<>();
    /** The partitions answered and their answers, in the same order. */
    private final List<SessionPartition> answered = new ArrayList<>();
    private final List<PartitionData> answers = new ArrayList<>();
    long bytes;
    boolean errors;

    private FetchPass() {
    }

    /**
     * Reads {@code partitions}: {@code maxBytes} bounds the records over all of them (the first
     * partition with records returns at least one whole batch, KIP-74); with
     * {@code incremental}, partitions with nothing new are left out of the answer; a fetch from
     * a follower ({@code replicaId} 0 or more) reads what {@link PartitionLeadership#checkReplica}
     * allows (see {@link FetchHandler}), and a partition whose records
     * {@link PartitionLeadership#throttledToReplica} holds back is answered without them (error
     * NONE, its high watermark as usual), which leaves the fetch waiting for other data, as Kafka's
     * leader side of the replication throttle.
     */
    static FetchPass run(Topics topics, PartitionLeadership leadership, Iterable<SessionPartition> partitions, int maxBytes, boolean readCommitted,
            boolean byId, boolean incremental, int replicaId) {
        boolean fromFollower = replicaId >= 0;
        FetchPass out = new FetchPass();
        long budget = maxBytes;
        for (SessionPartition sp : partitions) {
            Topic topic = topics.get(sp.topic);
            Errors error;
            LogReadResult r = null;
            Log log = topic == null || sp.partition < 0 || sp.partition >= topic.partitions() ? null
                    : topics.log(sp.topic, sp.partition);
            Errors idError = byId ? FetchTopicIds.check(sp.topic, topic, sp.topicId) : Errors.NONE;
            Errors lead = topic == null || sp.partition < 0 || sp.partition >= topic.partitions() ? Errors.NONE
                    : fromFollower ? leadership.checkReplica(sp.topic, sp.partition, replicaId, sp.currentLeaderEpoch)
                    : leadership.check(sp.topic, sp.partition, sp.currentLeaderEpoch);
            boolean notFinal = false;
            if (idError != Errors.NONE) {
                error = idError;
            } else if (lead != Errors.NONE) {
                // another node leads (NOT_LEADER_OR_FOLLOWER), or the client's epoch is older or newer than ours
                error = lead;
            } else if (log == null) {
                error = Errors.UNKNOWN_TOPIC_OR_PARTITION;
            } else if (fromFollower && leadership.drainedByNewLeader(sp.topic, sp.partition)
                    && log.highWatermark() < log.logEndOffset()) {
                // a fenced former leader whose last records are not all durable yet: nothing until
                // they are, so that the high watermark it names is its log's final end
                error = Errors.NONE;
                notFinal = true;
            } else {
                int limit = (int) Math.min(Math.min(sp.partitionMaxBytes, budget), Integer.MAX_VALUE);
                r = log.read(sp.fetchOffset, Math.max(0, limit), out.bytes == 0, readCommitted);
                error = r.error();
            }
            int size = 0;
            if (error != Errors.NONE) {
                out.errors = true;
            } else if (r != null && r.records() != null && r.sizeInBytes() > 0
                    && !(fromFollower && leadership.throttledToReplica(sp.topic, sp.partition, replicaId, r.sizeInBytes()))) {
                // (records held back by the leader replication throttle: answered without them, as Kafka does)
                size = r.sizeInBytes();
                out.bytes += size;
                budget -= size;
            }
            long highWatermark = r == null ? -1 : r.highWatermark();
            long logStartOffset = r == null ? notFinal ? log.logStartOffset() : -1 : r.logStartOffset();
            if (incremental && !sp.mustAnswer(size, error, highWatermark, logStartOffset)) {
                continue;
            }
            PartitionData pd = new PartitionData().partitionIndex(sp.partition).preferredReadReplica(-1)
                    .records(size > 0 ? r.records() : BufferRecords.EMPTY).errorCode(error.code())
                    .highWatermark(highWatermark).logStartOffset(logStartOffset)
                    .lastStableOffset(r == null ? -1 : r.lastStableOffset());
            if (r != null) {
                pd.abortedTransactions(readCommitted ? aborted(log, sp.fetchOffset, r) : null);
            }
            out.add(sp, pd, byId);
        }
        return out;
    }

    private void add(SessionPartition sp, PartitionData pd, boolean byId) {
        FetchableTopicResponse last = responses.isEmpty() ? null : responses.get(responses.size() - 1);
        if (last == null || !(byId ? Objects.equals(last.topicId(), sp.topicId) : last.topic().equals(sp.topic))) {
            last = new FetchableTopicResponse().topic(sp.topic).topicId(sp.topicId);
            responses.add(last);
        }
        last.partitions().add(pd);
        answered.add(sp);
        answers.add(pd);
    }

    /**
     * Records in the answered partitions what this pass told the client; returns those that
     * returned records (for the session to move to its end).
     */
    List<SessionPartition> commit() {
        List<SessionPartition> withRecords = new ArrayList<>();
        for (int i = 0; i < answered.size(); i++) {
            PartitionData pd = answers.get(i);
            answered.get(i).answered(pd);
            if (pd.records().sizeInBytes() > 0) {
                withRecords.add(answered.get(i));
            }
        }
        return withRecords;
    }

    /**
     * Kafka's BrokerTopicMetrics for the partitions this (answered) pass returns: one fetch
     * request per partition, its record bytes out, or its error. Only the pass that is answered
     * counts, not every re-check of a long poll.
     */
    void meter(BrokerMetrics metrics) {
        for (int i = 0; i < answered.size(); i++) {
            PartitionData pd = answers.get(i);
            Errors error = Errors.forCode(pd.errorCode());
            TopicMetrics m = error == Errors.UNKNOWN_TOPIC_OR_PARTITION || error == Errors.UNKNOWN_TOPIC_ID
                    ? metrics.allTopics() : metrics.topic(answered.get(i).topic);
            m.fetched(pd.records().sizeInBytes(), error);
        }
    }

    FetchResponse response(int sessionId) {
        return new FetchResponse().errorCode(Errors.NONE.code()).sessionId(sessionId).responses(responses);
    }

    /**
     * The aborted transactions a READ_COMMITTED consumer must know to skip records of: those
     * overlapping the fetched range, bounded by the last stable offset (an over-approximation
     * of the returned data's end; the client ignores entries past what it received).
     */
    private static List<FetchResponse.AbortedTransaction> aborted(Log log, long fetchOffset, LogReadResult r) {
        List<FetchResponse.AbortedTransaction> out = new ArrayList<>();
        if (r.error() != Errors.NONE || r.records() == null) {
            return out;
        }
        for (AbortedTransaction a : log.abortedTransactions(fetchOffset, r.lastStableOffset())) {
            out.add(new FetchResponse.AbortedTransaction().producerId(a.producerId()).firstOffset(a.firstOffset()));
        }
        return out;
    }
}
