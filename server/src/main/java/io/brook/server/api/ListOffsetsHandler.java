package io.brook.server.api;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.server.topic.Topic;
import io.brook.server.topic.Topics;
import io.brook.storage.Log;
import io.brook.storage.TimestampOffset;
import io.brook.wire.message.ListOffsetsRequest;
import io.brook.wire.message.ListOffsetsRequest.ListOffsetsPartition;
import io.brook.wire.message.ListOffsetsRequest.ListOffsetsTopic;
import io.brook.wire.message.ListOffsetsResponse;
import io.brook.wire.message.ListOffsetsResponse.ListOffsetsPartitionResponse;
import io.brook.wire.message.ListOffsetsResponse.ListOffsetsTopicResponse;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.Errors;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * ListOffsets (key 2): -2 earliest and -4 earliest-local → log start offset;
 * -1 latest → high watermark (last stable offset for READ_COMMITTED); -3 → the record with the
 * largest timestamp (v7+); -5 latest-tiered and -6 earliest-pending-upload (v11, KIP-1023) →
 * offset -1 with leader epoch -1, as Kafka answers them without tiered storage; a real timestamp
 * → the first offset whose record timestamp is at or above it, or -1 when there is none. Special
 * values answer with timestamp -1; every other answer carries the leader epoch (0 on a single node).
 * The answers the high watermark bounds first wait, briefly, for what the log held when the
 * request came to be visible ({@link VisibleTail}): a client that produced with acks=1 sees its
 * records in the latest offset, as on Kafka's single node.
 */
final class ListOffsetsHandler implements ApiHandler<ListOffsetsRequest> {

    static final long LATEST_TIERED = -5L;
    static final long EARLIEST_PENDING_UPLOAD = -6L;

    private final BrokerContext broker;

    ListOffsetsHandler(BrokerContext broker) {
        this.broker = broker;
    }

    @Override
    public void handle(RequestContext ctx, ListOffsetsRequest request) {
        VisibleTail.thenAnswer(drawnFromHighWatermark(request), broker.timer(), ctx.nonBlockingExecutor(),
                () -> ctx.respond(answer(ctx, request)));
    }

    /**
     * The logs whose answer the high watermark bounds (every lookup but the earliest ones and the
     * tiered ones), so that it may first wait for what was appended to become visible.
     */
    private List<Log> drawnFromHighWatermark(ListOffsetsRequest request) {
        Topics topics = broker.topics();
        List<Log> logs = new ArrayList<>();
        for (ListOffsetsTopic t : request.topics()) {
            Topic topic = topics.get(t.name());
            for (ListOffsetsPartition p : t.partitions()) {
                long ts = p.timestamp();
                if (topic != null && p.partitionIndex() >= 0 && p.partitionIndex() < topic.partitions()
                        && ts != Log.EARLIEST_TIMESTAMP && ts != Log.EARLIEST_LOCAL_TIMESTAMP
                        && ts != LATEST_TIERED && ts != EARLIEST_PENDING_UPLOAD) {
                    Log log = topics.log(t.name(), p.partitionIndex());
                    if (log != null) {
                        logs.add(log);
                    }
                }
            }
        }
        return logs;
    }

    private ListOffsetsResponse answer(RequestContext ctx, ListOffsetsRequest request) {
        Topics topics = broker.topics();
        // leader_epoch exists from v4 on and older versions cannot carry a non-default value
        boolean withEpoch = ctx.apiVersion() >= 4;
        boolean readCommitted = request.isolationLevel() == 1;
        List<ListOffsetsTopicResponse> out = new ArrayList<>();
        for (ListOffsetsTopic t : request.topics()) {
            Topic topic = topics.get(t.name());
            List<ListOffsetsPartitionResponse> parts = new ArrayList<>();
            for (ListOffsetsPartition p : t.partitions()) {
                ListOffsetsPartitionResponse r = new ListOffsetsPartitionResponse().partitionIndex(p.partitionIndex())
                        .timestamp(-1).offset(-1).leaderEpoch(-1);
                Log log = topic == null || p.partitionIndex() < 0 || p.partitionIndex() >= topic.partitions() ? null
                        : topics.log(t.name(), p.partitionIndex());
                Errors lead = topic == null || p.partitionIndex() < 0 || p.partitionIndex() >= topic.partitions()
                        ? Errors.NONE : broker.leadership().check(t.name(), p.partitionIndex(), p.currentLeaderEpoch());
                if (lead != Errors.NONE) {
                    r.errorCode(lead.code());
                } else if (log == null) {
                    r.errorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
                } else if (p.timestamp() == LATEST_TIERED || p.timestamp() == EARLIEST_PENDING_UPLOAD) {
                    // nothing is tiered: Kafka's answer without remote storage
                    r.errorCode(Errors.NONE.code());
                } else {
                    lookup(log, p.timestamp(), readCommitted, r,
                            withEpoch ? broker.leadership().leaderEpoch(t.name(), p.partitionIndex()) : -1);
                }
                parts.add(r);
            }
            out.add(new ListOffsetsTopicResponse().name(t.name()).partitions(parts));
        }
        return new ListOffsetsResponse().topics(out);
    }

    private static void lookup(Log log, long timestamp, boolean readCommitted, ListOffsetsPartitionResponse r,
            int epoch) {
        TimestampOffset found;
        try {
            found = log.offsetForTimestamp(timestamp, readCommitted);
        } catch (IOException e) {
            r.errorCode(Errors.KAFKA_STORAGE_ERROR.code());
            return;
        }
        r.errorCode(Errors.NONE.code()).leaderEpoch(epoch);
        if (found != null) {
            r.offset(found.offset()).timestamp(timestamp < 0 && timestamp != Log.MAX_TIMESTAMP ? -1 : found.timestamp());
        }
    }
}
