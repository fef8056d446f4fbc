package io.brook.cluster.raft;

import io.brook.cluster.metadata.CorruptMetadataException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;

/**
 * What the appender of a batch learns once it is committed and applied: the batch's log index and,
 * for each of its records in order, whether the image applied it or rejected it.
 *
 * <pre>
 * log index i64 | record count i32 | one byte per record (1 applied, 0 rejected)
 * </pre>
 */
public record AppendResult(long index, List<Boolean> applied) {
    public AppendResult {
        applied = List.copyOf(applied);
    }

    /** Whether every record of the batch was applied. */
    public boolean allApplied() {
        return !applied.contains(false);
    }

    Message toMessage() {
        ByteBuffer b = ByteBuffer.allocate(8 + 4 + applied.size());
        b.putLong(index).putInt(applied.size());
        for (boolean a : applied) {
            b.put((byte) (a ? 1 : 0));
        }
        return Message.valueOf(UnsafeByteOperations.unsafeWrap(b.array()));
    }

    static AppendResult fromMessage(Message message) {
        ByteBuffer b = message.getContent().asReadOnlyByteBuffer();
        if (b.remaining() < 12) {
            throw new CorruptMetadataException("append result of " + b.remaining() + " bytes");
        }
        long index = b.getLong();
        int count = b.getInt();
        if (count < 0 || count != b.remaining()) {
            throw new CorruptMetadataException("append result claims " + count + " records in " + b.remaining() + " bytes");
        }
        List<Boolean> applied = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            applied.add(b.get() == 1);
        }
        return new AppendResult(index, applied);
    }
}
