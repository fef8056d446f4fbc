package io.brook.cluster.member;

import io.brook.cluster.controller.Controller;
import io.brook.cluster.controller.ControllerError;
import io.brook.cluster.controller.ProducerIdBlock;
import io.brook.cluster.metadata.CorruptMetadataException;
import io.brook.cluster.metadata.MetadataReader;
import io.brook.cluster.metadata.MetadataWriter;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The controller's answer to a {@link ControllerRequest}, in the controller channel's format:
 *
 * <pre>
 * magic 'B' 'R' | version u8 = 1 | outcome u8 | ...
 *   outcome 0 DECIDED:       applied index i64 | value tag u8 | value
 *                            (tag 0 none, 1 i64, 2 uuid, 3 producer-id block: broker i32, first i64, size i32,
 *                            4 quorum status: leader i32, epoch i64, high watermark i64, voters, observers,
 *                              each a count i32 + count x (node i32, log end i64, last fetch i64, caught up i64),
 *                            5 per-record flags of a security write: count i32 + count x u8 (1 applied, 0 not))
 *   outcome 1 REFUSED:       error code i16 (Kafka's) | message string
 *   outcome 2 NO_CONTROLLER: message string (the node asked is not the controller; nothing was decided,
 *                            so the request may be sent again)
 * </pre>
 *
 * The applied index is the controller's last applied log index once the decision was applied: the
 * asking node waits until its own image has applied that far before it completes the decision.
 */
record ControllerReply(Outcome outcome, long appliedIndex, Object value, ControllerError error, String message) {

    static final byte MAGIC_0 = 'B';
    static final byte MAGIC_1 = 'R';
    static final byte VERSION = 1;

    /** What became of a request. */
    enum Outcome { DECIDED, REFUSED, NO_CONTROLLER }

    /**
     * A decision applied up to {@code appliedIndex}; {@code value} null, a Long, a UUID, a
     * ProducerIdBlock, a QuorumStatus or a list of Booleans.
     */
    static ControllerReply decided(long appliedIndex, Object value) {
        return new ControllerReply(Outcome.DECIDED, appliedIndex, value, null, null);
    }

    static ControllerReply refused(ControllerError error, String message) {
        return new ControllerReply(Outcome.REFUSED, -1, null, error, message);
    }

    static ControllerReply noController(String message) {
        return new ControllerReply(Outcome.NO_CONTROLLER, -1, null, null, message);
    }

    byte[] encode() {
        MetadataWriter w = new MetadataWriter().writeByte(MAGIC_0).writeByte(MAGIC_1).writeByte(VERSION)
                .writeByte(outcome.ordinal());
        switch (outcome) {
            case DECIDED -> {
                w.writeLong(appliedIndex);
                if (value == null) {
                    w.writeByte(0);
                } else if (value instanceof Long l) {
                    w.writeByte(1).writeLong(l);
                } else if (value instanceof UUID u) {
                    w.writeByte(2).writeUuid(u);
                } else if (value instanceof ProducerIdBlock b) {
                    w.writeByte(3).writeInt(b.brokerId()).writeLong(b.firstId()).writeInt(b.size());
                } else if (value instanceof QuorumStatus q) {
                    w.writeByte(4).writeInt(q.leaderId()).writeLong(q.leaderEpoch()).writeLong(q.highWatermark());
                    writeReplicas(w, q.voters());
                    writeReplicas(w, q.observers());
                } else if (value instanceof List<?> flags) {
                    w.writeByte(5).writeInt(flags.size());
                    for (Object flag : flags) {
                        w.writeByte((Boolean) flag ? 1 : 0);
                    }
                } else {
                    throw new IllegalArgumentException("no wire form for a reply value " + value.getClass());
                }
            }
            case REFUSED -> w.writeShort(error.code()).writeNullableString(message);
            case NO_CONTROLLER -> w.writeNullableString(message);
        }
        return w.toByteArray();
    }

    /** Reads a reply; the bytes must hold exactly one. */
    static ControllerReply decode(ByteBuffer buf) {
        MetadataReader r = new MetadataReader(buf.duplicate());
        byte m0 = r.readByte("magic");
        byte m1 = r.readByte("magic");
        if (m0 != MAGIC_0 || m1 != MAGIC_1) {
            throw new CorruptMetadataException("not a controller reply (magic " + m0 + " " + m1 + ")");
        }
        byte version = r.readByte("version");
        if (version != VERSION) {
            throw new CorruptMetadataException("controller reply version " + version + " is unknown");
        }
        byte outcome = r.readByte("outcome");
        ControllerReply reply = switch (outcome) {
            case 0 -> readDecided(r);
            case 1 -> readRefused(r);
            case 2 -> noController(r.readNullableString("message"));
            default -> throw new CorruptMetadataException("unknown controller reply outcome " + outcome);
        };
        if (r.remaining() != 0) {
            throw new CorruptMetadataException("controller reply has " + r.remaining() + " bytes left over");
        }
        return reply;
    }

    private static ControllerReply readDecided(MetadataReader r) {
        long index = r.readLong("applied index");
        byte tag = r.readByte("value tag");
        Object value = switch (tag) {
            case 0 -> null;
            case 1 -> r.readLong("value");
            case 2 -> r.readUuid("value");
            case 3 -> new ProducerIdBlock(r.readInt("block broker"), r.readLong("block first id"), r.readInt("block size"));
            case 4 -> new QuorumStatus(r.readInt("leader"), r.readLong("leader epoch"), r.readLong("high watermark"),
                    readReplicas(r, "voters"), readReplicas(r, "observers"));
            case 5 -> readFlags(r);
            default -> throw new CorruptMetadataException("unknown controller reply value tag " + tag);
        };
        return decided(index, value);
    }

    private static List<Boolean> readFlags(MetadataReader r) {
        int count = r.readCount("applied flags", 1);
        if (count > Controller.MAX_SECURITY_RECORDS) {
            throw new CorruptMetadataException(count + " applied flags; at most " + Controller.MAX_SECURITY_RECORDS);
        }
        List<Boolean> flags = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            byte flag = r.readByte("applied flag");
            if (flag != 0 && flag != 1) {
                throw new CorruptMetadataException("applied flag " + flag + " is neither 0 nor 1");
            }
            flags.add(flag == 1);
        }
        return List.copyOf(flags);
    }

    private static void writeReplicas(MetadataWriter w, List<QuorumStatus.Replica> replicas) {
        w.writeInt(replicas.size());
        for (QuorumStatus.Replica q : replicas) {
            w.writeInt(q.nodeId()).writeLong(q.logEndOffset()).writeLong(q.lastFetchTimestamp())
                    .writeLong(q.lastCaughtUpTimestamp());
        }
    }

    private static List<QuorumStatus.Replica> readReplicas(MetadataReader r, String what) {
        int count = r.readCount(what, 4 + 3 * 8);
        List<QuorumStatus.Replica> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            out.add(new QuorumStatus.Replica(r.readInt("node id"), r.readLong("log end"), r.readLong("last fetch"),
                    r.readLong("last caught up")));
        }
        return out;
    }

    private static ControllerReply readRefused(MetadataReader r) {
        short code = r.readShort("error code");
        for (ControllerError e : ControllerError.values()) {
            if (e.code() == code) {
                return refused(e, r.readNullableString("message"));
            }
        }
        throw new CorruptMetadataException("controller reply has an unknown error code " + code);
    }
}
