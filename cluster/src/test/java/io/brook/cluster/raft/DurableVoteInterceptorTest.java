package io.brook.cluster.raft;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.ratis.proto.RaftProtos.AppendEntriesReplyProto;
import org.apache.ratis.proto.RaftProtos.RaftRpcReplyProto;
import org.apache.ratis.proto.RaftProtos.RequestVoteReplyProto;
import org.apache.ratis.proto.grpc.RaftServerProtocolServiceGrpc;
import org.apache.ratis.thirdparty.io.grpc.Attributes;
import org.apache.ratis.thirdparty.io.grpc.Metadata;
import org.apache.ratis.thirdparty.io.grpc.MethodDescriptor;
import org.apache.ratis.thirdparty.io.grpc.ServerCall;
import org.apache.ratis.thirdparty.io.grpc.Status;
import org.junit.jupiter.api.Test;

/** The interceptor on its own: a recording call in place of gRPC's, a recording hook in place of the force. */
class DurableVoteInterceptorTest {

    private final List<String> events = new ArrayList<>();

    /** A server call that records what the service and the interceptor do with it. */
    private final class RecordingCall<Q, A> extends ServerCall<Q, A> {
        private final MethodDescriptor<Q, A> method;

        RecordingCall(MethodDescriptor<Q, A> method) {
            this.method = method;
        }

        @Override
        public void request(int numMessages) {
        }

        @Override
        public void sendHeaders(Metadata headers) {
        }

        @Override
        public void sendMessage(A message) {
            events.add("sent " + (message instanceof RequestVoteReplyProto r ? r.getServerReply().getSuccess()
                    : message instanceof AppendEntriesReplyProto a ? a.getResult() : "other"));
        }

        @Override
        public void close(Status status, Metadata trailers) {
            events.add("closed " + status.getCode());
        }

        @Override
        public boolean isCancelled() {
            return false;
        }

        @Override
        public Attributes getAttributes() {
            return Attributes.EMPTY;
        }

        @Override
        public MethodDescriptor<Q, A> getMethodDescriptor() {
            return method;
        }
    }

    /** Starts a call through the interceptor and returns the call the service was given. */
    private static <Q, A> ServerCall<Q, A> intercept(DurableVoteInterceptor interceptor, ServerCall<Q, A> call) {
        List<ServerCall<Q, A>> given = new ArrayList<>();
        interceptor.interceptCall(call, new Metadata(), (c, headers) -> {
            given.add(c);
            return new ServerCall.Listener<>() {
            };
        });
        return given.get(0);
    }

    private static RequestVoteReplyProto vote(boolean granted) {
        return RequestVoteReplyProto.newBuilder()
                .setServerReply(RaftRpcReplyProto.newBuilder().setSuccess(granted)).build();
    }

    @Test
    void aGrantedVoteIsMadeDurableBeforeItIsSent() {
        var interceptor = new DurableVoteInterceptor(() -> events.add("forced"));
        var call = intercept(interceptor, new RecordingCall<>(RaftServerProtocolServiceGrpc.getRequestVoteMethod()));

        call.sendMessage(vote(true));
        call.close(Status.OK, new Metadata());

        assertThat(events).containsExactly("forced", "sent true", "closed OK");
    }

    @Test
    void aRefusedVoteIsSentWithoutAForce() {
        var interceptor = new DurableVoteInterceptor(() -> events.add("forced"));
        var call = intercept(interceptor, new RecordingCall<>(RaftServerProtocolServiceGrpc.getRequestVoteMethod()));

        call.sendMessage(vote(false));
        call.close(Status.OK, new Metadata());

        assertThat(events).containsExactly("sent false", "closed OK");
    }

    @Test
    void aVoteThatCannotBeMadeDurableIsNotSentAndTheCallFails() {
        var interceptor = new DurableVoteInterceptor(() -> {
            throw new IOException("Input/output error");
        });
        var call = intercept(interceptor, new RecordingCall<>(RaftServerProtocolServiceGrpc.getRequestVoteMethod()));

        call.sendMessage(vote(true));
        call.close(Status.OK, new Metadata()); // what the service does next is dropped

        assertThat(events).containsExactly("closed UNAVAILABLE");
    }

    @Test
    void everyOtherCallPassesUntouched() {
        var interceptor = new DurableVoteInterceptor(() -> events.add("forced"));
        var append = new RecordingCall<>(RaftServerProtocolServiceGrpc.getAppendEntriesMethod());

        ServerCall<?, AppendEntriesReplyProto> given = intercept(interceptor, append);
        given.sendMessage(AppendEntriesReplyProto.newBuilder().setResult(AppendEntriesReplyProto.AppendResult.SUCCESS)
                .setServerReply(RaftRpcReplyProto.newBuilder().setSuccess(true)).build());

        assertThat(given).isSameAs(append);
        assertThat(events).containsExactly("sent SUCCESS");
    }
}
