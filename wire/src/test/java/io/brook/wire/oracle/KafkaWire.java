package io.brook.wire.oracle;

import java.nio.ByteBuffer;

import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/** The kafka-clients side of the oracle: its generated messages to and from bytes. */
final class KafkaWire {

    private KafkaWire() {
    }

    /** The message serialised by kafka-clients at {@code version}, exactly {@code size} bytes. */
    static byte[] write(ApiMessage message, short version) {
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int size = message.size(cache, version);
        ByteBuffer buffer = ByteBuffer.allocate(size);
        message.write(new ByteBufferAccessor(buffer), cache, version);
        if (buffer.hasRemaining()) {
            throw new IllegalStateException("kafka-clients wrote " + buffer.position() + " of " + size + " bytes");
        }
        return buffer.array();
    }

    /** kafka-clients' reading of {@code bytes}; throws if it does not consume every byte. */
    static ApiMessage read(ApiMessageType type, boolean request, byte[] bytes, short version) {
        ApiMessage message = request ? type.newRequest() : type.newResponse();
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        message.read(new ByteBufferAccessor(buffer), version);
        if (buffer.hasRemaining()) {
            throw new IllegalStateException("kafka-clients left " + buffer.remaining() + " of " + bytes.length
                    + " bytes unread");
        }
        return message;
    }

    /** The highest version kafka-clients can write, unstable ones included (they have schemas). */
    static short highestVersion(ApiMessageType type) {
        return type.highestSupportedVersion(true);
    }
}
