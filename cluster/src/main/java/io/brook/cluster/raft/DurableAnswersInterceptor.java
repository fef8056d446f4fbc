package io.brook.cluster.raft;

import org.apache.ratis.grpc.server.GrpcServices;
import org.apache.ratis.proto.RaftProtos.AppendEntriesReplyProto;
import org.apache.ratis.proto.RaftProtos.RequestVoteReplyProto;
import org.apache.ratis.proto.grpc.RaftServerProtocolServiceGrpc;
import org.apache.ratis.thirdparty.io.grpc.ForwardingServerCall;
import org.apache.ratis.thirdparty.io.grpc.Metadata;
import org.apache.ratis.thirdparty.io.grpc.ServerCall;
import org.apache.ratis.thirdparty.io.grpc.ServerCallHandler;
import org.apache.ratis.thirdparty.io.grpc.ServerInterceptor;
import org.apache.ratis.thirdparty.io.grpc.Status;
import org.apache.ratis.thirdparty.io.grpc.netty.NettyServerBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.EnumSet;

/**
 * Makes the names in the Raft log's directory durable before an answer that another node counts
 * on leaves this one: a granted vote, and an acknowledged append.
 *
 * <p>Ratis forces its files but never their directory, and under POSIX a new or renamed name is
 * durable only once its directory is forced (on ext4, once the journal commits: the next force
 * of any file, or within a few seconds). Two answers depend on such names:
 * <ul>
 *   <li><b>A granted vote.</b> Raft's safety rests on a voter never granting two votes in one
 *       term. Ratis writes the term and the vote to a temporary file, forces it, renames it over
 *       {@code current/raft-meta} and answers. A voter that lost power before the rename was
 *       durable would come back with its older vote and could grant a second one in the same
 *       term: two leaders of one term.
 *   <li><b>An acknowledged append.</b> A follower answers once the entries are forced into its
 *       open segment; when that segment was just created (or the one before it renamed), its
 *       name may not be durable, and the leader counts the entries as replicated here.
 * </ul>
 *
 * <p>This interceptor sits on the Raft server's gRPC service (installed through Ratis'
 * {@link GrpcServices.Customizer}). Before a RequestVote answer that grants the vote, or an
 * AppendEntries answer of SUCCESS, leaves, it calls {@code beforeAnswer}, which forces the
 * {@code current} directory if its names changed since its last force ({@link
 * RaftDirectoryForcer#beforeAnswer}: a {@code stat} when nothing changed). If that fails, the
 * answer is not sent and the call ends UNAVAILABLE: the leader or candidate counts nothing from
 * this node, as if it had not answered. Refusals and every other call pass untouched.
 *
 * <p>The node's own vote and entries are covered elsewhere: a candidate's vote for itself when it
 * wins ({@link MetadataStateMachine#notifyLeaderChanged}), and a leader's entries before it answers
 * the client that wrote them (the state machine's apply). Not covered: a leader's own force counts
 * towards an entry's commit before the leader's segment name is durable; see docs/cluster.md.
 */
final class DurableAnswersInterceptor implements ServerInterceptor {
    private static final Logger LOG = LoggerFactory.getLogger(DurableAnswersInterceptor.class);
    private static final String REQUEST_VOTE = RaftServerProtocolServiceGrpc.getRequestVoteMethod().getFullMethodName();
    private static final String APPEND_ENTRIES = RaftServerProtocolServiceGrpc.getAppendEntriesMethod().getFullMethodName();

    /** Makes the directory's names durable before an answer; throws if it cannot. */
    interface BeforeAnswer {
        /** @param vote whether the answer is a granted vote (else an acknowledged append) */
        void run(boolean vote) throws Exception;
    }

    private final BeforeAnswer beforeAnswer;

    DurableAnswersInterceptor(BeforeAnswer beforeAnswer) {
        this.beforeAnswer = beforeAnswer;
    }

    /** The customizer that installs this interceptor on the Raft server's service. */
    GrpcServices.Customizer customizer() {
        return new GrpcServices.Customizer() {
            @Override
            public NettyServerBuilder customize(NettyServerBuilder builder, EnumSet<GrpcServices.Type> types) {
                return types.contains(GrpcServices.Type.SERVER) ? builder.intercept(DurableAnswersInterceptor.this) : builder;
            }
        };
    }

    @Override
    public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers,
                                                       ServerCallHandler<Q, A> next) {
        String method = call.getMethodDescriptor().getFullMethodName();
        if (!REQUEST_VOTE.equals(method) && !APPEND_ENTRIES.equals(method)) {
            return next.startCall(call, headers);
        }
        return next.startCall(new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
            /** An answer was withheld and the call closed here: what Ratis sends after is dropped. */
            private boolean withheld;

            @Override
            public void sendMessage(A answer) {
                if (withheld) {
                    return;
                }
                boolean vote = answer instanceof RequestVoteReplyProto v && v.getServerReply().getSuccess();
                boolean ack = answer instanceof AppendEntriesReplyProto a
                        && a.getResult() == AppendEntriesReplyProto.AppendResult.SUCCESS;
                if (vote || ack) {
                    try {
                        beforeAnswer.run(vote);
                    } catch (Exception e) {
                        LOG.warn("A {} was not sent: the Raft log's directory could not be forced",
                                vote ? "granted vote" : "acknowledged append", e);
                        withheld = true;
                        super.close(Status.UNAVAILABLE.withDescription("the Raft log's directory could not be forced: "
                                + e), new Metadata());
                        return;
                    }
                }
                super.sendMessage(answer);
            }

            @Override
            public void close(Status status, Metadata trailers) {
                if (!withheld) {
                    super.close(status, trailers);
                }
            }
        }, headers);
    }
}
