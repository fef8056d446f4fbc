package io.brook.cluster.member;

import io.brook.cluster.controller.ControllerError;
import java.nio.ByteBuffer;

/**
 * One ask of the controller channel as it goes over the wire: the {@link ControllerRequest} behind
 * an id that stays the same however often the ask is sent again, so that the controller decides
 * it at most once ({@link RecentAsks}).
 *
 * <p>Why an id: a controller request travels as a Ratis read-only request, and Ratis' retry cache,
 * which makes a write sent again count once, does not cover those. Ratis' client sends a request
 * again when the stream it went out on fails (a NotLeader reply to another request on the same
 * stream fails every request on it), and the leader may have taken it before that; without the
 * id it would decide again, appending the same records a second time.
 *
 * <p>Wire format:
 * <pre>
 * magic 'B' 'A' | node id i32 | channel i64 | sequence i64 | the request's own encoding (magic 'B' 'C' ...)
 * </pre>
 * {@code channel} is a random number each {@link ControllerChannel} draws when it is created (a
 * node that restarts gets a new one), {@code sequence} counts its asks. Bytes without the
 * envelope are a bare request (a node of an earlier version), decided as before; and a controller
 * of an earlier version refuses the envelope without deciding anything
 * ({@link #refusedByEarlierVersion}), so the asking node sends the bare request instead: a
 * rolling upgrade may take the nodes in any order.
 */
record ControllerAsk(Id id, ByteBuffer request) {

    private static final byte MAGIC_0 = 'B';
    private static final byte MAGIC_1 = 'A';
    private static final int HEADER = 2 + 4 + 8 + 8;

    /**
     * How a controller of a version before the envelope refuses one (INVALID_REQUEST): it reads
     * {@code 'B' 'A'} as a request's magic. Nothing was decided, so the ask goes again bare.
     */
    static final String REFUSED_BY_EARLIER_VERSION = "not a controller request (magic " + MAGIC_0 + " " + MAGIC_1 + ")";

    /** Whether {@code reply} is a controller of an earlier version refusing the envelope itself. */
    static boolean refusedByEarlierVersion(ControllerReply reply) {
        return reply.outcome() == ControllerReply.Outcome.REFUSED && reply.error() == ControllerError.INVALID_REQUEST
                && reply.message() != null && reply.message().startsWith(REFUSED_BY_EARLIER_VERSION);
    }

    /** Who asked, and which of their asks this is. */
    record Id(int nodeId, long channel, long sequence) {
    }

    /** The envelope of {@code request} (a {@link ControllerRequest#encode()}) under {@code id}. */
    static byte[] wrap(Id id, byte[] request) {
        return ByteBuffer.allocate(HEADER + request.length).put(MAGIC_0).put(MAGIC_1).putInt(id.nodeId())
                .putLong(id.channel()).putLong(id.sequence()).put(request).array();
    }

    /**
     * The ask in {@code bytes} (not consumed): its id and the request after it, or no id and the
     * whole of {@code bytes} when they are a bare request.
     */
    static ControllerAsk unwrap(ByteBuffer bytes) {
        ByteBuffer b = bytes.duplicate();
        if (b.remaining() < HEADER || b.get(b.position()) != MAGIC_0 || b.get(b.position() + 1) != MAGIC_1) {
            return new ControllerAsk(null, b);
        }
        b.position(b.position() + 2);
        Id id = new Id(b.getInt(), b.getLong(), b.getLong());
        return new ControllerAsk(id, b.slice());
    }
}
