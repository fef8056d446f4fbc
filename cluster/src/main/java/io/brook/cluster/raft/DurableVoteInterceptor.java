package io.brook.cluster.raft;

import org.apache.ratis.grpc.server.GrpcServices;
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
 * Makes a granted vote durable before the candidate hears of it.
 *
 * <p>Raft's safety rests on a voter never granting two votes in one term, so a voter must keep
 * its vote across a crash before it answers. Ratis writes the term and the vote to a temporary
 * file, forces it and renames it over {@code raft-meta} in the log's {@code current} directory,
 * then answers; it never forces the directory. Under POSIX the rename is durable only once the
 * directory is forced (on ext4, once the journal commits: the next force of any file, or within
 * a few seconds). A voter that lost power in that window would come back with its earlier vote
 * and could grant a second one in the same term: two leaders of one term.
 *
 * <p>This interceptor sits on the Raft server's gRPC service (installed through Ratis'
 * {@link GrpcServices.Customizer}): before a RequestVote answer that grants the vote leaves, it
 * calls {@code beforeGrant}, which forces the {@code current} directory if its names changed since
 * its last force ({@link RaftDirectoryForcer#beforeAnswer}). If that fails, the answer is not sent
 * and the call ends UNAVAILABLE: the candidate counts no vote, as if this voter had not answered.
 * Refusals and every other call pass untouched.
 *
 * <p>A candidate's vote for itself is forced when it wins ({@link
 * MetadataStateMachine#notifyLeaderChanged}); the log's own names before each force of the log
 * ({@link MetadataStateMachine#flush}).
 */
final class DurableVoteInterceptor implements ServerInterceptor {
    private static final Logger LOG = LoggerFactory.getLogger(DurableVoteInterceptor.class);
    private static final String REQUEST_VOTE = RaftServerProtocolServiceGrpc.getRequestVoteMethod().getFullMethodName();

    /** Makes the vote's rename durable; throws if it cannot. */
    interface BeforeGrant {
        void run() throws Exception;
    }

    private final BeforeGrant beforeGrant;

    DurableVoteInterceptor(BeforeGrant beforeGrant) {
        this.beforeGrant = beforeGrant;
    }

    /** The customizer that installs this interceptor on the Raft server's service. */
    GrpcServices.Customizer customizer() {
        return new GrpcServices.Customizer() {
            @Override
            public NettyServerBuilder customize(NettyServerBuilder builder, EnumSet<GrpcServices.Type> types) {
                return types.contains(GrpcServices.Type.SERVER) ? builder.intercept(DurableVoteInterceptor.this) : builder;
            }
        };
    }

    @Override
    public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers,
                                                       ServerCallHandler<Q, A> next) {
        if (!REQUEST_VOTE.equals(call.getMethodDescriptor().getFullMethodName())) {
            return next.startCall(call, headers);
        }
        return next.startCall(new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
            /** The vote was withheld and the call closed here: what Ratis sends after is dropped. */
            private boolean withheld;

            @Override
            public void sendMessage(A answer) {
                if (withheld) {
                    return;
                }
                if (answer instanceof RequestVoteReplyProto reply && reply.getServerReply().getSuccess()) {
                    try {
                        beforeGrant.run();
                    } catch (Exception e) {
                        LOG.warn("A granted vote was not sent: it could not be made durable", e);
                        withheld = true;
                        super.close(Status.UNAVAILABLE.withDescription("the vote could not be made durable: " + e),
                                new Metadata());
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
