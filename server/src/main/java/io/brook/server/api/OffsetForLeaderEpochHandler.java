package io.brook.server.api;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.server.topic.Topic;
import io.brook.server.topic.Topics;
import io.brook.storage.Log;
import io.brook.wire.message.OffsetForLeaderEpochRequest;
import io.brook.wire.message.OffsetForLeaderEpochRequest.OffsetForLeaderPartition;
import io.brook.wire.message.OffsetForLeaderEpochRequest.OffsetForLeaderTopic;
import io.brook.wire.message.OffsetForLeaderEpochResponse;
import io.brook.wire.message.OffsetForLeaderEpochResponse.EpochEndOffset;
import io.brook.wire.message.OffsetForLeaderEpochResponse.OffsetForLeaderTopicResult;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.List;

/**
 * OffsetForLeaderEpoch (key 23), used by consumers to detect log truncation (KIP-320). A single
 * node never changes leader, so every partition has had exactly one leader epoch, 0, which ends
 * at the log end offset: asking for epoch 0 (or later, as a newer client might) answers
 * (0, log end offset); a negative epoch has no answer (UNDEFINED: -1, -1). A current leader
 * epoch above 0 is one we have not reached (UNKNOWN_LEADER_EPOCH).
 */
final class OffsetForLeaderEpochHandler implements ApiHandler<OffsetForLeaderEpochRequest> {

    private final BrokerContext broker;

    OffsetForLeaderEpochHandler(BrokerContext broker) {
        this.broker = broker;
    }

    @Override
    public void handle(RequestContext ctx, OffsetForLeaderEpochRequest request) {
        Topics topics = broker.topics();
        List<OffsetForLeaderTopicResult> out = new ArrayList<>();
        for (OffsetForLeaderTopic t : request.topics()) {
            Topic topic = topics.get(t.topic());
            List<EpochEndOffset> parts = new ArrayList<>();
            for (OffsetForLeaderPartition p : t.partitions()) {
                EpochEndOffset r = new EpochEndOffset().partition(p.partition()).leaderEpoch(-1).endOffset(-1);
                Log log = topic == null || p.partition() < 0 || p.partition() >= topic.partitions() ? null
                        : topics.log(t.topic(), p.partition());
                Errors lead = topic == null || p.partition() < 0 || p.partition() >= topic.partitions()
                        ? Errors.NONE : broker.leadership().check(t.topic(), p.partition(), p.currentLeaderEpoch());
                if (lead != Errors.NONE) {
                    r.errorCode(lead.code());
                } else if (log == null) {
                    r.errorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
                } else {
                    r.errorCode(Errors.NONE.code());
                    if (p.leaderEpoch() >= 0) {
                        // one leader (this node) since the log began: its epoch ends at the log end
                        r.leaderEpoch(broker.leadership().leaderEpoch(t.topic(), p.partition()))
                                .endOffset(log.logEndOffset());
                    }
                }
                parts.add(r);
            }
            out.add(new OffsetForLeaderTopicResult().topic(t.topic()).partitions(parts));
        }
        ctx.respond(new OffsetForLeaderEpochResponse().topics(out));
    }
}
