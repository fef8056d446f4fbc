package io.brook.wire.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.function.Consumer;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

class VarintsTest {

    private static ByteBuffer write(Consumer<ProtocolWriter> body) {
        ByteBuffer buf = ByteBuffer.allocate(32);
        body.accept(new ByteBufferWriter(buf));
        return buf.flip();
    }

    private static byte[] bytesOf(Consumer<ProtocolWriter> body) {
        ByteBuffer buf = write(body);
        byte[] b = new byte[buf.remaining()];
        buf.get(b);
        return b;
    }

    private static ByteBuffer bytes(int... bytes) {
        ByteBuffer buf = ByteBuffer.allocate(bytes.length);
        for (int b : bytes) {
            buf.put((byte) b);
        }
        return buf.flip();
    }

    @Test
    void shouldZigZagEncodeSignedVarints() {
        assertThat(bytesOf(out -> Varints.writeVarint(0, out))).containsExactly(0);
        assertThat(bytesOf(out -> Varints.writeVarint(-1, out))).containsExactly(1);
        assertThat(bytesOf(out -> Varints.writeVarint(1, out))).containsExactly(2);
        assertThat(bytesOf(out -> Varints.writeVarint(-64, out))).containsExactly(0x7F);
        assertThat(bytesOf(out -> Varints.writeVarint(64, out))).containsExactly(0x80, 0x01);
        assertThat(bytesOf(out -> Varints.writeVarlong(Long.MIN_VALUE, out))).hasSize(10);
    }

    @Property
    void unsignedVarintsRoundTripWithPredictedSize(@ForAll int value) {
        ByteBuffer buf = write(out -> Varints.writeUnsignedVarint(value, out));
        assertThat(buf.remaining()).isEqualTo(Varints.sizeOfUnsignedVarint(value));
        assertThat(Varints.readUnsignedVarint(buf, "f")).isEqualTo(value);
        assertThat(buf.hasRemaining()).isFalse();
    }

    @Property
    void varintsRoundTripWithPredictedSize(@ForAll int value) {
        ByteBuffer buf = write(out -> Varints.writeVarint(value, out));
        assertThat(buf.remaining()).isEqualTo(Varints.sizeOfVarint(value));
        assertThat(Varints.readVarint(buf, "f")).isEqualTo(value);
        assertThat(buf.hasRemaining()).isFalse();
    }

    @Property
    void varlongsRoundTripWithPredictedSize(@ForAll long value) {
        ByteBuffer buf = write(out -> Varints.writeVarlong(value, out));
        assertThat(buf.remaining()).isEqualTo(Varints.sizeOfVarlong(value));
        assertThat(Varints.readVarlong(buf, "f")).isEqualTo(value);
        assertThat(buf.hasRemaining()).isFalse();
    }

    @Test
    void shouldReadPaddedEncodings() {
        assertThat(Varints.readVarint(bytes(0x82, 0x80, 0x00), "f")).isEqualTo(1);
        assertThat(Varints.readUnsignedVarint(bytes(0x80, 0x80, 0x80, 0x80, 0x00), "f")).isZero();
    }

    @Test
    void shouldRejectOverlongValues() {
        assertThatThrownBy(() -> Varints.readVarint(bytes(0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01), "M.f"))
                .isInstanceOf(ProtocolDecodeException.class).hasMessage("M.f: varint longer than 5 bytes");
        assertThatThrownBy(() -> Varints.readVarlong(bytes(0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                0x80, 0x01), "M.f")).isInstanceOf(ProtocolDecodeException.class)
                .hasMessage("M.f: varlong longer than 10 bytes");
        // exactly 5 and 10 bytes are fine
        assertThat(Varints.readVarint(bytes(0xFF, 0xFF, 0xFF, 0xFF, 0x0F), "f")).isEqualTo(Integer.MIN_VALUE);
        assertThat(Varints.readVarlong(bytes(0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01), "f"))
                .isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void shouldRejectTruncatedValuesAtTheLimit() {
        assertThatThrownBy(() -> Varints.readVarlong(bytes(0x80), "M.f"))
                .isInstanceOf(ProtocolDecodeException.class).hasMessage("M.f: truncated varlong");
        ByteBuffer limited = bytes(0x80, 0x01).limit(1);
        assertThatThrownBy(() -> Varints.readVarint(limited, "M.f"))
                .isInstanceOf(ProtocolDecodeException.class).hasMessage("M.f: truncated varint");
    }
}
