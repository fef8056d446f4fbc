package io.brook.server;

import io.brook.coordinator.group.GroupCoordinator;
import io.brook.wire.message.DeleteGroupsRequest;
import io.brook.wire.message.DeleteGroupsResponse;
import io.brook.wire.message.DeleteGroupsResponse.DeletableGroupResult;
import io.brook.wire.message.DescribeGroupsRequest;
import io.brook.wire.message.DescribeGroupsResponse;
import io.brook.wire.message.DescribeGroupsResponse.DescribedGroup;
import io.brook.wire.message.HeartbeatRequest;
import io.brook.wire.message.HeartbeatResponse;
import io.brook.wire.message.JoinGroupRequest;
import io.brook.wire.message.JoinGroupResponse;
import io.brook.wire.message.LeaveGroupRequest;
import io.brook.wire.message.LeaveGroupResponse;
import io.brook.wire.message.LeaveGroupResponse.MemberResponse;
import io.brook.wire.message.ListGroupsRequest;
import io.brook.wire.message.ListGroupsResponse;
import io.brook.wire.message.OffsetCommitRequest;
import io.brook.wire.message.OffsetCommitRequest.OffsetCommitRequestPartition;
import io.brook.wire.message.OffsetCommitRequest.OffsetCommitRequestTopic;
import io.brook.wire.message.OffsetCommitResponse;
import io.brook.wire.message.OffsetCommitResponse.OffsetCommitResponsePartition;
import io.brook.wire.message.OffsetCommitResponse.OffsetCommitResponseTopic;
import io.brook.wire.message.OffsetDeleteRequest;
import io.brook.wire.message.OffsetDeleteRequest.OffsetDeleteRequestPartition;
import io.brook.wire.message.OffsetDeleteRequest.OffsetDeleteRequestTopic;
import io.brook.wire.message.OffsetDeleteResponse;
import io.brook.wire.message.OffsetDeleteResponse.OffsetDeleteResponsePartition;
import io.brook.wire.message.OffsetDeleteResponse.OffsetDeleteResponseTopic;
import io.brook.wire.message.OffsetFetchRequest;
import io.brook.wire.message.OffsetFetchResponse;
import io.brook.wire.message.SyncGroupRequest;
import io.brook.wire.message.SyncGroupResponse;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.Errors;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The group APIs (protocol.md §5.5, §6): JoinGroup, SyncGroup, Heartbeat, LeaveGroup,
 * OffsetCommit, OffsetFetch, DescribeGroups, ListGroups, DeleteGroups and OffsetDelete, each a
 * thin adapter over the {@link GroupCoordinator}.
 *
 * <p>Threading: {@link ApiHandler#handle} hands the request to the coordinator and returns; the
 * coordinator completes the future on its own thread — possibly much later (a JoinGroup waits for
 * the rebalance) — and the completion only calls {@link RequestContext#respond}, which never
 * blocks. The connection keeps responses in request order, so a parked JoinGroup holds back the
 * answers to later requests of the same connection, exactly as Kafka does (clients send their
 * heartbeats on a separate coordinator connection).
 *
 * <p>What the broker adds to the coordinator: the client's address for DescribeGroups (Kafka's
 * {@code /ip} form), and the topic check of OffsetCommit and OffsetDelete — partitions of topics
 * this broker does not host are answered UNKNOWN_TOPIC_OR_PARTITION without reaching the
 * coordinator, as Kafka does.
 */
final class GroupHandlers {

    private GroupHandlers() {
    }

    /** Answers {@code ctx} when {@code future} completes; an exceptional completion becomes the API's error response. */
    private static void reply(RequestContext ctx, CompletableFuture<? extends ApiMessage> future) {
        future.whenComplete((response, failure) -> {
            if (failure != null) {
                ctx.fail(failure);
            } else {
                ctx.respond(response);
            }
        });
    }

    private static GroupCoordinator coordinator(RequestContext ctx) {
        GroupCoordinator c = ctx.broker().groups();
        if (c == null) {
            throw new IllegalStateException("the group coordinator is not running");
        }
        return c;
    }

    /** Kafka reports a member's host as {@code InetAddress.toString()}: {@code "/127.0.0.1"}. */
    static String clientHost(SocketAddress address) {
        if (address instanceof InetSocketAddress inet && inet.getAddress() != null) {
            return "/" + inet.getAddress().getHostAddress();
        }
        return address == null ? "" : address.toString();
    }

    static boolean hosts(TopicManager topics, String topic, int partition) {
        TopicInfo t = topic == null ? null : topics.get(topic);
        return t != null && partition >= 0 && partition < t.partitions();
    }

    static final class Join implements ApiHandler<JoinGroupRequest> {
        @Override
        public void handle(RequestContext ctx, JoinGroupRequest request) {
            reply(ctx, coordinator(ctx).joinGroup(request, ctx.apiVersion(), ctx.clientId(),
                    clientHost(ctx.clientAddress())));
        }

        @Override
        public ApiMessage errorResponse(JoinGroupRequest request, short version, Errors error) {
            return new JoinGroupResponse().errorCode(error.code()).generationId(-1)
                    .protocolName(version >= 7 ? null : "").leader("")
                    .memberId(request.memberId() == null ? "" : request.memberId());
        }
    }

    static final class Sync implements ApiHandler<SyncGroupRequest> {
        @Override
        public void handle(RequestContext ctx, SyncGroupRequest request) {
            reply(ctx, coordinator(ctx).syncGroup(request, ctx.apiVersion()));
        }

        @Override
        public ApiMessage errorResponse(SyncGroupRequest request, short version, Errors error) {
            return new SyncGroupResponse().errorCode(error.code()).assignment(new byte[0]);
        }
    }

    static final class Heartbeat implements ApiHandler<HeartbeatRequest> {
        @Override
        public void handle(RequestContext ctx, HeartbeatRequest request) {
            reply(ctx, coordinator(ctx).heartbeat(request, ctx.apiVersion()));
        }

        @Override
        public ApiMessage errorResponse(HeartbeatRequest request, short version, Errors error) {
            return new HeartbeatResponse().errorCode(error.code());
        }
    }

    static final class Leave implements ApiHandler<LeaveGroupRequest> {
        @Override
        public void handle(RequestContext ctx, LeaveGroupRequest request) {
            reply(ctx, coordinator(ctx).leaveGroup(request, ctx.apiVersion()));
        }

        @Override
        public ApiMessage errorResponse(LeaveGroupRequest request, short version, Errors error) {
            LeaveGroupResponse r = new LeaveGroupResponse().errorCode(error.code());
            if (version >= 3) {
                List<MemberResponse> members = new ArrayList<>();
                for (LeaveGroupRequest.MemberIdentity m : request.members()) {
                    members.add(new MemberResponse().memberId(m.memberId()).groupInstanceId(m.groupInstanceId())
                            .errorCode(error.code()));
                }
                r.members(members);
            }
            return r;
        }
    }

    /**
     * OffsetCommit: partitions of unknown topics, or beyond a topic's partition count, get
     * UNKNOWN_TOPIC_OR_PARTITION here; the rest go to the coordinator (which validates group,
     * member and generation) and both parts are merged into one answer.
     */
    static final class Commit implements ApiHandler<OffsetCommitRequest> {
        @Override
        public void handle(RequestContext ctx, OffsetCommitRequest request) {
            TopicManager topics = ctx.broker().topics();
            Map<String, List<OffsetCommitResponsePartition>> unknown = new LinkedHashMap<>();
            List<OffsetCommitRequestTopic> known = new ArrayList<>(request.topics().size());
            for (OffsetCommitRequestTopic t : request.topics()) {
                List<OffsetCommitRequestPartition> keep = new ArrayList<>(t.partitions().size());
                for (OffsetCommitRequestPartition p : t.partitions()) {
                    if (hosts(topics, t.name(), p.partitionIndex())) {
                        keep.add(p);
                    } else {
                        unknown.computeIfAbsent(t.name(), n -> new ArrayList<>()).add(new OffsetCommitResponsePartition()
                                .partitionIndex(p.partitionIndex()).errorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()));
                    }
                }
                if (!keep.isEmpty()) {
                    known.add(new OffsetCommitRequestTopic().name(t.name()).partitions(keep));
                }
            }
            if (unknown.isEmpty()) {
                reply(ctx, coordinator(ctx).commitOffsets(request, ctx.apiVersion()));
                return;
            }
            if (known.isEmpty()) {
                ctx.respond(new OffsetCommitResponse().topics(merge(new ArrayList<>(), unknown)));
                return;
            }
            request.topics(known); // the coordinator reads the request only after this point
            reply(ctx, coordinator(ctx).commitOffsets(request, ctx.apiVersion())
                    .thenApply(r -> r.topics(merge(r.topics(), unknown))));
        }

        private static List<OffsetCommitResponseTopic> merge(List<OffsetCommitResponseTopic> answered,
                Map<String, List<OffsetCommitResponsePartition>> unknown) {
            List<OffsetCommitResponseTopic> out = new ArrayList<>(answered);
            for (Map.Entry<String, List<OffsetCommitResponsePartition>> e : unknown.entrySet()) {
                OffsetCommitResponseTopic same = null;
                for (OffsetCommitResponseTopic t : out) {
                    if (t.name().equals(e.getKey())) {
                        same = t;
                        break;
                    }
                }
                if (same == null) {
                    out.add(new OffsetCommitResponseTopic().name(e.getKey()).partitions(new ArrayList<>(e.getValue())));
                } else {
                    List<OffsetCommitResponsePartition> parts = new ArrayList<>(same.partitions());
                    parts.addAll(e.getValue());
                    same.partitions(parts);
                }
            }
            return out;
        }

        @Override
        public ApiMessage errorResponse(OffsetCommitRequest request, short version, Errors error) {
            List<OffsetCommitResponseTopic> topics = new ArrayList<>();
            for (OffsetCommitRequestTopic t : request.topics()) {
                List<OffsetCommitResponsePartition> parts = new ArrayList<>();
                for (OffsetCommitRequestPartition p : t.partitions()) {
                    parts.add(new OffsetCommitResponsePartition().partitionIndex(p.partitionIndex()).errorCode(error.code()));
                }
                topics.add(new OffsetCommitResponseTopic().name(t.name()).partitions(parts));
            }
            return new OffsetCommitResponse().topics(topics);
        }
    }

    static final class Fetch implements ApiHandler<OffsetFetchRequest> {
        @Override
        public void handle(RequestContext ctx, OffsetFetchRequest request) {
            reply(ctx, coordinator(ctx).fetchOffsets(request, ctx.apiVersion()));
        }

        @Override
        public ApiMessage errorResponse(OffsetFetchRequest request, short version, Errors error) {
            if (version >= 8) {
                List<OffsetFetchResponse.OffsetFetchResponseGroup> groups = new ArrayList<>();
                for (OffsetFetchRequest.OffsetFetchRequestGroup g : request.groups()) {
                    groups.add(new OffsetFetchResponse.OffsetFetchResponseGroup().groupId(g.groupId())
                            .errorCode(error.code()));
                }
                return new OffsetFetchResponse().groups(groups);
            }
            // v0-1 have no top-level error code: the error goes to every partition asked for
            List<OffsetFetchResponse.OffsetFetchResponseTopic> topics = new ArrayList<>();
            if (request.topics() != null) {
                for (OffsetFetchRequest.OffsetFetchRequestTopic t : request.topics()) {
                    List<OffsetFetchResponse.OffsetFetchResponsePartition> parts = new ArrayList<>();
                    for (int p : t.partitionIndexes()) {
                        parts.add(new OffsetFetchResponse.OffsetFetchResponsePartition().partitionIndex(p)
                                .committedOffset(-1).committedLeaderEpoch(-1).metadata("").errorCode(error.code()));
                    }
                    topics.add(new OffsetFetchResponse.OffsetFetchResponseTopic().name(t.name()).partitions(parts));
                }
            }
            return new OffsetFetchResponse().topics(topics).errorCode(error.code());
        }
    }

    static final class Describe implements ApiHandler<DescribeGroupsRequest> {
        @Override
        public void handle(RequestContext ctx, DescribeGroupsRequest request) {
            reply(ctx, coordinator(ctx).describeGroups(request, ctx.apiVersion()));
        }

        @Override
        public ApiMessage errorResponse(DescribeGroupsRequest request, short version, Errors error) {
            List<DescribedGroup> groups = new ArrayList<>();
            for (String id : request.groups()) {
                groups.add(new DescribedGroup().groupId(id).errorCode(error.code()).groupState("")
                        .protocolType("").protocolData(""));
            }
            return new DescribeGroupsResponse().groups(groups);
        }
    }

    static final class ListAll implements ApiHandler<ListGroupsRequest> {
        @Override
        public void handle(RequestContext ctx, ListGroupsRequest request) {
            reply(ctx, coordinator(ctx).listGroups(request, ctx.apiVersion()));
        }

        @Override
        public ApiMessage errorResponse(ListGroupsRequest request, short version, Errors error) {
            return new ListGroupsResponse().errorCode(error.code());
        }
    }

    static final class Delete implements ApiHandler<DeleteGroupsRequest> {
        @Override
        public void handle(RequestContext ctx, DeleteGroupsRequest request) {
            reply(ctx, coordinator(ctx).deleteGroups(request, ctx.apiVersion()));
        }

        @Override
        public ApiMessage errorResponse(DeleteGroupsRequest request, short version, Errors error) {
            List<DeletableGroupResult> results = new ArrayList<>();
            for (String id : request.groupsNames()) {
                results.add(new DeletableGroupResult().groupId(id).errorCode(error.code()));
            }
            return new DeleteGroupsResponse().results(results);
        }
    }

    /** OffsetDelete: like OffsetCommit, partitions this broker does not host are answered here. */
    static final class DeleteOffsets implements ApiHandler<OffsetDeleteRequest> {
        @Override
        public void handle(RequestContext ctx, OffsetDeleteRequest request) {
            TopicManager topics = ctx.broker().topics();
            Map<String, List<OffsetDeleteResponsePartition>> unknown = new LinkedHashMap<>();
            List<OffsetDeleteRequestTopic> known = new ArrayList<>(request.topics().size());
            for (OffsetDeleteRequestTopic t : request.topics()) {
                List<OffsetDeleteRequestPartition> keep = new ArrayList<>(t.partitions().size());
                for (OffsetDeleteRequestPartition p : t.partitions()) {
                    if (hosts(topics, t.name(), p.partitionIndex())) {
                        keep.add(p);
                    } else {
                        unknown.computeIfAbsent(t.name(), n -> new ArrayList<>()).add(new OffsetDeleteResponsePartition()
                                .partitionIndex(p.partitionIndex()).errorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()));
                    }
                }
                if (!keep.isEmpty()) {
                    known.add(new OffsetDeleteRequestTopic().name(t.name()).partitions(keep));
                }
            }
            if (unknown.isEmpty()) {
                reply(ctx, coordinator(ctx).deleteOffsets(request, ctx.apiVersion()));
                return;
            }
            request.topics(known);
            reply(ctx, coordinator(ctx).deleteOffsets(request, ctx.apiVersion()).thenApply(r -> {
                if (r.errorCode() != Errors.NONE.code()) {
                    return r; // a group-level error answers for every partition
                }
                List<OffsetDeleteResponseTopic> out = new ArrayList<>(r.topics());
                for (Map.Entry<String, List<OffsetDeleteResponsePartition>> e : unknown.entrySet()) {
                    out.add(new OffsetDeleteResponseTopic().name(e.getKey()).partitions(e.getValue()));
                }
                return r.topics(out);
            }));
        }

        @Override
        public ApiMessage errorResponse(OffsetDeleteRequest request, short version, Errors error) {
            return new OffsetDeleteResponse().errorCode(error.code());
        }
    }
}
