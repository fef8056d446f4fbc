package io.brook.server.api;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.server.topic.Topic;
import io.brook.server.topic.Topics;
import io.brook.storage.Log;
import io.brook.wire.message.DeleteRecordsRequest;
import io.brook.wire.message.DeleteRecordsRequest.DeleteRecordsPartition;
import io.brook.wire.message.DeleteRecordsRequest.DeleteRecordsTopic;
import io.brook.wire.message.DeleteRecordsResponse;
import io.brook.wire.message.DeleteRecordsResponse.DeleteRecordsPartitionResult;
import io.brook.wire.message.DeleteRecordsResponse.DeleteRecordsTopicResult;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.List;

/**
 * DeleteRecords (key 21): moves a partition's log start offset forward to {@code offset}
 * (-1 = the high watermark); the answer's low watermark is the new log start offset. A request
 * that reaches above the high watermark first waits, briefly, for what the log held when it came
 * to be visible ({@link VisibleTail}): a client that produced with acks=1 may delete its records
 * at once, as on Kafka's single node.
 */
final class DeleteRecordsHandler implements ApiHandler<DeleteRecordsRequest> {

    private final BrokerContext broker;

    DeleteRecordsHandler(BrokerContext broker) {
        this.broker = broker;
    }

    @Override
    public void handle(RequestContext ctx, DeleteRecordsRequest request) {
        VisibleTail.thenAnswer(beyondHighWatermark(request), broker.timer(), ctx.nonBlockingExecutor(),
                () -> ctx.respond(answer(request)));
    }

    /**
     * The logs asked to delete up to their high watermark ({@code -1}) or above it, so that what was
     * appended to them first becomes visible (an offset above the log end stays out of range).
     */
    private List<Log> beyondHighWatermark(DeleteRecordsRequest request) {
        Topics topics = broker.topics();
        List<Log> logs = new ArrayList<>();
        for (DeleteRecordsTopic t : request.topics()) {
            Topic topic = topics.get(t.name());
            for (DeleteRecordsPartition p : t.partitions()) {
                if (topic != null && !topic.isInternal() && p.partitionIndex() >= 0 && p.partitionIndex() < topic.partitions()) {
                    Log log = topics.log(t.name(), p.partitionIndex());
                    if (log != null && (p.offset() == -1 || p.offset() > log.highWatermark())) {
                        logs.add(log);
                    }
                }
            }
        }
        return logs;
    }

    private DeleteRecordsResponse answer(DeleteRecordsRequest request) {
        Topics topics = broker.topics();
        List<DeleteRecordsTopicResult> out = new ArrayList<>();
        for (DeleteRecordsTopic t : request.topics()) {
            Topic topic = topics.get(t.name());
            List<DeleteRecordsPartitionResult> parts = new ArrayList<>();
            for (DeleteRecordsPartition p : t.partitions()) {
                DeleteRecordsPartitionResult r = new DeleteRecordsPartitionResult().partitionIndex(p.partitionIndex())
                        .lowWatermark(-1);
                Log log = topic == null || p.partitionIndex() < 0 || p.partitionIndex() >= topic.partitions() ? null
                        : topics.log(t.name(), p.partitionIndex());
                Errors lead = topic == null || p.partitionIndex() < 0 || p.partitionIndex() >= topic.partitions()
                        ? Errors.NONE : broker.leadership().check(t.name(), p.partitionIndex(), -1);
                if (lead != Errors.NONE) {
                    r.errorCode(lead.code());
                } else if (log == null) {
                    r.errorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
                } else if (topic.isInternal()) {
                    r.errorCode(Errors.INVALID_TOPIC_EXCEPTION.code()); // as Kafka: the coordinators' state
                } else if (p.offset() < -1) {
                    r.errorCode(Errors.OFFSET_OUT_OF_RANGE.code());
                } else {
                    Errors e = log.deleteRecordsBefore(p.offset());
                    r.errorCode(e.code());
                    if (e == Errors.NONE) {
                        r.lowWatermark(log.logStartOffset());
                    }
                }
                parts.add(r);
            }
            out.add(new DeleteRecordsTopicResult().name(t.name()).partitions(parts));
        }
        return new DeleteRecordsResponse().topics(out);
    }
}
