package io.brook.server.api;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.server.node.ClusterView;
import io.brook.server.security.Acl;
import io.brook.server.security.Authorizer;
import io.brook.server.topic.Topic;
import io.brook.server.topic.TopicNames;
import io.brook.wire.message.DescribeTopicPartitionsRequest;
import io.brook.wire.message.DescribeTopicPartitionsRequest.Cursor;
import io.brook.wire.message.DescribeTopicPartitionsRequest.TopicRequest;
import io.brook.wire.message.DescribeTopicPartitionsResponse;
import io.brook.wire.message.DescribeTopicPartitionsResponse.DescribeTopicPartitionsResponsePartition;
import io.brook.wire.message.DescribeTopicPartitionsResponse.DescribeTopicPartitionsResponseTopic;
import io.brook.wire.message.MetadataResponse.MetadataResponsePartition;
import io.brook.wire.message.MetadataResponse.MetadataResponseTopic;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.UUID;

/**
 * DescribeTopicPartitions (key 75): the partitions of the named topics, or of every topic the
 * client may describe, in name order and a page at a time. The admin client of kafka-clients 3.8
 * and later describes topics by name with it (so {@code kafka-topics.sh --describe} does), and
 * falls back to Metadata only against a broker that does not offer it.
 *
 * <ul>
 * <li>A page holds at most {@code ResponsePartitionLimit} partitions, and never more than
 *     {@code max.request.partition.size.limit} (2000) nor fewer than one. A page that stops inside
 *     a topic, or with topics left, carries {@code NextCursor}: the topic and partition the next
 *     request starts from. A request's {@code Cursor} skips the topics before its topic and that
 *     topic's partitions before its index; with named topics the cursor's topic must be one of
 *     them and its index at least 0, or every named topic is answered INVALID_REQUEST.
 * <li>Named topics: an unknown one is UNKNOWN_TOPIC_OR_PARTITION (INVALID_TOPIC_EXCEPTION for a
 *     name no topic may have); with an authorizer, one the client may not DESCRIBE is
 *     TOPIC_AUTHORIZATION_FAILED with the zero id, whether it exists or not, after the others.
 *     All topics (an empty list): those the client may not DESCRIBE are left out.
 * <li>Each answered topic carries its authorized operations (KIP-430), as Kafka always sends them
 *     in this API. Brook keeps no eligible leader replicas (KIP-966): both ELR lists are empty.
 * </ul>
 *
 * <p>The same data as Metadata's ({@link MetadataHandler#describe}, {@link ClusterMetadata#describe}),
 * whose leader-less partitions answer LEADER_NOT_AVAILABLE there; here, as in Kafka, a
 * partition's error is always NONE and a missing leader is leader id -1.
 */
final class DescribeTopicPartitionsHandler implements ApiHandler<DescribeTopicPartitionsRequest> {

    private static final UUID ZERO_UUID = new UUID(0, 0);

    private final BrokerContext broker;
    private final Authorizer authorizer;

    DescribeTopicPartitionsHandler(BrokerContext broker, Authorizer authorizer) {
        this.broker = broker;
        this.authorizer = authorizer != null && authorizer.enabled() ? authorizer : null;
    }

    @Override
    public void handle(RequestContext ctx, DescribeTopicPartitionsRequest request) {
        boolean allTopics = request.topics().isEmpty();
        Cursor cursor = request.cursor();
        String from = cursor == null ? "" : cursor.topicName();
        TreeSet<String> names = new TreeSet<>();
        if (allTopics) {
            names.addAll(allNames());
        } else {
            for (TopicRequest t : request.topics()) {
                names.add(t.name());
            }
            if (cursor != null && !names.contains(cursor.topicName())) {
                ctx.respond(invalid(request)); // the topics do not name the cursor's topic
                return;
            }
        }
        if (cursor != null && cursor.partitionIndex() < 0) {
            ctx.respond(invalid(request)); // a negative partition index
            return;
        }
        int limit = Math.max(1, Math.min(broker.config().maxRequestPartitionSizeLimit(),
                request.responsePartitionLimit()));
        DescribeTopicPartitionsResponse response = new DescribeTopicPartitionsResponse();
        List<DescribeTopicPartitionsResponseTopic> out = new ArrayList<>();
        List<DescribeTopicPartitionsResponseTopic> refused = new ArrayList<>();
        int remaining = limit;
        for (String name : names.tailSet(from, true)) {
            if (authorizer != null && !authorizer.authorize(ctx.session().principal(), ctx.clientHost(),
                    Acl.DESCRIBE, Acl.TOPIC, name)) {
                if (!allTopics) {
                    refused.add(error(name, Errors.TOPIC_AUTHORIZATION_FAILED, false));
                }
                continue;
            }
            if (remaining == 0) {
                // the page is full at a topic's start
                response.nextCursor(new DescribeTopicPartitionsResponse.Cursor().topicName(name).partitionIndex(0));
                break;
            }
            MetadataResponseTopic topic = find(name);
            if (topic == null) {
                if (!allTopics) {
                    out.add(error(name, TopicNames.invalidNameReason(name) != null ? Errors.INVALID_TOPIC_EXCEPTION
                            : Errors.UNKNOWN_TOPIC_OR_PARTITION, TopicNames.isInternal(name)));
                }
                continue;
            }
            List<MetadataResponsePartition> partitions = topic.partitions();
            int start = name.equals(from) ? cursor.partitionIndex() : 0;
            int end = (int) Math.min(partitions.size(), (long) start + remaining);
            List<DescribeTopicPartitionsResponsePartition> page = new ArrayList<>(Math.max(0, end - start));
            for (int p = start; p < end; p++) {
                page.add(partition(partitions.get(p)));
            }
            out.add(new DescribeTopicPartitionsResponseTopic().errorCode(Errors.NONE.code()).name(name)
                    .topicId(topic.topicId()).isInternal(topic.isInternal()).partitions(page));
            if (end < partitions.size()) {
                response.nextCursor(new DescribeTopicPartitionsResponse.Cursor().topicName(name).partitionIndex(end));
                break;
            }
            remaining -= page.size();
        }
        for (DescribeTopicPartitionsResponseTopic t : out) {
            t.topicAuthorizedOperations(authorizer == null ? MetadataHandler.TOPIC_OPERATIONS
                    : authorizer.authorizedOperations(ctx.session().principal(), ctx.clientHost(), Acl.TOPIC, t.name(),
                            MetadataHandler.TOPIC_OPERATIONS));
        }
        out.addAll(refused);
        ctx.respond(response.topics(out));
    }

    private List<String> allNames() {
        List<String> names = new ArrayList<>();
        ClusterView cluster = broker.cluster();
        if (cluster != null) {
            cluster.topics().forEach(t -> names.add(t.name()));
        } else {
            broker.topics().all().forEach(t -> names.add(t.name()));
        }
        return names;
    }

    /** The topic as Metadata describes it, or null when there is none of that name. */
    private MetadataResponseTopic find(String name) {
        ClusterView cluster = broker.cluster();
        if (cluster != null) {
            ClusterView.TopicState t = cluster.topic(name);
            return t == null ? null : ClusterMetadata.describe(t, false);
        }
        Topic t = broker.topics().get(name);
        return t == null ? null : MetadataHandler.describe(t, broker.nodeId(), false);
    }

    private static DescribeTopicPartitionsResponsePartition partition(MetadataResponsePartition p) {
        return new DescribeTopicPartitionsResponsePartition().errorCode(Errors.NONE.code())
                .partitionIndex(p.partitionIndex()).leaderId(p.leaderId()).leaderEpoch(p.leaderEpoch())
                .replicaNodes(p.replicaNodes()).isrNodes(p.isrNodes()).eligibleLeaderReplicas(List.of())
                .lastKnownElr(List.of()).offlineReplicas(p.offlineReplicas());
    }

    /** A topic answered with {@code error} alone; the id is never disclosed there. */
    private static DescribeTopicPartitionsResponseTopic error(String name, Errors error, boolean internal) {
        return new DescribeTopicPartitionsResponseTopic().errorCode(error.code()).name(name).topicId(ZERO_UUID)
                .isInternal(internal).partitions(List.of());
    }

    /** Every named topic answered INVALID_REQUEST, as Kafka answers a request it refuses. */
    private static DescribeTopicPartitionsResponse invalid(DescribeTopicPartitionsRequest request) {
        List<DescribeTopicPartitionsResponseTopic> out = new ArrayList<>();
        for (TopicRequest t : request.topics()) {
            out.add(error(t.name(), Errors.INVALID_REQUEST, false));
        }
        return new DescribeTopicPartitionsResponse().topics(out);
    }
}
