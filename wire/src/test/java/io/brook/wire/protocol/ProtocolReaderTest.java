package io.brook.wire.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Function;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

class ProtocolReaderTest {

    private static ByteBuffer write(Consumer<ProtocolWriter> body) {
        ByteBuffer buf = ByteBuffer.allocate(1024);
        body.accept(new ByteBufferWriter(buf));
        return buf.flip();
    }

    private static ProtocolReader reader(int... bytes) {
        ByteBuffer buf = ByteBuffer.allocate(bytes.length);
        for (int b : bytes) {
            buf.put((byte) b);
        }
        return new ProtocolReader(buf.flip());
    }

    @Test
    void shouldRoundTripFixedWidthEdgeValues() {
        UUID uuid = new UUID(0x0123456789abcdefL, 0xfedcba9876543210L);
        ByteBuffer buf = write(out -> {
            out.writeByte(Byte.MIN_VALUE);
            out.writeShort(Short.MAX_VALUE);
            out.writeInt(Integer.MIN_VALUE);
            out.writeLong(Long.MAX_VALUE);
            out.writeShort((short) 0xFFFF);
            out.writeInt(0xFFFFFFFF);
            out.writeDouble(-0.5);
            out.writeBoolean(true);
            out.writeBoolean(false);
            out.writeUuid(uuid);
        });
        ProtocolReader in = new ProtocolReader(buf);
        assertThat(in.readInt8("f")).isEqualTo(Byte.MIN_VALUE);
        assertThat(in.readInt16("f")).isEqualTo(Short.MAX_VALUE);
        assertThat(in.readInt32("f")).isEqualTo(Integer.MIN_VALUE);
        assertThat(in.readInt64("f")).isEqualTo(Long.MAX_VALUE);
        assertThat(in.readUint16("f")).isEqualTo(65535);
        assertThat(in.readUint32("f")).isEqualTo(4294967295L);
        assertThat(in.readFloat64("f")).isEqualTo(-0.5);
        assertThat(in.readBoolean("f")).isTrue();
        assertThat(in.readBoolean("f")).isFalse();
        assertThat(in.readUuid("f")).isEqualTo(uuid);
        assertThat(in.remaining()).isZero();
    }

    @Test
    void shouldWriteBigEndian() {
        ByteBuffer buf = write(out -> out.writeInt(0x01020304));
        assertThat(new byte[] {buf.get(0), buf.get(1), buf.get(2), buf.get(3)}).containsExactly(1, 2, 3, 4);
    }

    @Test
    void shouldEncodeUnsignedVarintsAsLeb128() {
        assertThat(bytesOf(out -> out.writeUnsignedVarint(0))).containsExactly(0);
        assertThat(bytesOf(out -> out.writeUnsignedVarint(127))).containsExactly(0x7F);
        assertThat(bytesOf(out -> out.writeUnsignedVarint(128))).containsExactly(0x80, 0x01);
        assertThat(bytesOf(out -> out.writeUnsignedVarint(300))).containsExactly(0xAC, 0x02);
        assertThat(bytesOf(out -> out.writeUnsignedVarint(-1))).containsExactly(0xFF, 0xFF, 0xFF, 0xFF, 0x0F);
    }

    private static byte[] bytesOf(Consumer<ProtocolWriter> body) {
        ByteBuffer buf = write(body);
        byte[] b = new byte[buf.remaining()];
        buf.get(b);
        return b;
    }

    @Property
    void unsignedVarintsRoundTripWithPredictedSize(@ForAll int value) {
        ByteBuffer buf = write(out -> out.writeUnsignedVarint(value));
        assertThat(buf.remaining()).isEqualTo(Varints.sizeOfUnsignedVarint(value));
        assertThat(new ProtocolReader(buf).readUnsignedVarint("f")).isEqualTo(value);
    }

    @Property
    void utf8LengthMatchesTheJdkEncoder(@ForAll String s) {
        byte[] jdk = s.getBytes(StandardCharsets.UTF_8);
        assertThat(Utf8.encodedLength(s)).isEqualTo(jdk.length);
        ByteBuffer buf = ByteBuffer.allocate(jdk.length);
        new ByteBufferWriter(buf).writeUtf8(s, jdk.length);
        assertThat(buf.array()).isEqualTo(jdk);
    }

    @Test
    void shouldEncodeSurrogatePairsAndLoneSurrogatesLikeTheJdk() {
        for (String s : new String[] {"\uD83D\uDE00", "a\uD800b", "\uDC00", "é€"}) {
            byte[] jdk = s.getBytes(StandardCharsets.UTF_8);
            ByteBuffer buf = ByteBuffer.allocate(jdk.length);
            new ByteBufferWriter(buf).writeUtf8(s, Utf8.encodedLength(s));
            assertThat(buf.array()).as(s).isEqualTo(jdk);
        }
    }

    @Test
    void shouldRejectOverlongVarints() {
        assertThatThrownBy(() -> reader(0x80, 0x80, 0x80, 0x80, 0x80, 0x01).readUnsignedVarint("M.f"))
                .isInstanceOf(ProtocolDecodeException.class).hasMessageStartingWith("M.f:").hasMessageContaining("5 bytes");
        // exactly 5 bytes are fine
        assertThat(reader(0xFF, 0xFF, 0xFF, 0xFF, 0x0F).readUnsignedVarint("f")).isEqualTo(-1);
    }

    @Test
    void shouldRejectTruncatedPrimitives() {
        assertDecodeError(r -> r.readInt16("M.f"), "M.f", 1);
        assertDecodeError(r -> r.readInt32("M.f"), "M.f", 0, 0, 0);
        assertDecodeError(r -> r.readInt64("M.f"), "M.f", 0, 0, 0, 0, 0, 0, 0);
        assertDecodeError(r -> r.readUuid("M.f"), "M.f", 0, 0, 0, 0, 0, 0, 0, 0);
        assertDecodeError(r -> r.readFloat64("M.f"), "M.f");
        assertDecodeError(r -> r.readInt8("M.f"), "M.f");
        assertDecodeError(r -> r.readUnsignedVarint("M.f"), "M.f", 0x80, 0x80);
    }

    private static void assertDecodeError(Function<ProtocolReader, Object> read, String field, int... bytes) {
        assertThatThrownBy(() -> read.apply(reader(bytes)))
                .isInstanceOf(ProtocolDecodeException.class)
                .hasMessageStartingWith(field + ":");
    }

    @Test
    void shouldReadClassicAndCompactStrings() {
        ByteBuffer buf = write(out -> {
            out.writeShort((short) 3);
            out.writeByteArray("abc".getBytes(StandardCharsets.UTF_8));
            out.writeShort((short) -1);
            out.writeUnsignedVarint(3);
            out.writeByteArray("xy".getBytes(StandardCharsets.UTF_8));
            out.writeUnsignedVarint(0);
            out.writeUnsignedVarint(1);
        });
        ProtocolReader in = new ProtocolReader(buf);
        assertThat(in.readString("f", false, false)).isEqualTo("abc");
        assertThat(in.readString("f", false, true)).isNull();
        assertThat(in.readString("f", true, false)).isEqualTo("xy");
        assertThat(in.readString("f", true, true)).isNull();
        assertThat(in.readString("f", true, false)).isEmpty();
    }

    @Test
    void shouldReadStringsFromDirectBuffers() {
        ByteBuffer heap = write(out -> {
            out.writeShort((short) 2);
            out.writeByteArray(new byte[] {'h', 'i'});
        });
        ByteBuffer direct = ByteBuffer.allocateDirect(heap.remaining()).put(heap).flip();
        assertThat(new ProtocolReader(direct).readString("f", false, false)).isEqualTo("hi");
    }

    @Test
    void shouldRejectNullInNonNullableFields() {
        assertThatThrownBy(() -> reader(0xFF, 0xFF).readString("M.s", false, false))
                .isInstanceOf(ProtocolDecodeException.class).hasMessageContaining("M.s").hasMessageContaining("null");
        assertThatThrownBy(() -> reader(0).readBytes("M.b", true, false))
                .isInstanceOf(ProtocolDecodeException.class).hasMessageContaining("M.b");
        assertThatThrownBy(() -> reader(0xFF, 0xFF, 0xFF, 0xFF).readArrayLength("M.a", false, false, 1))
                .isInstanceOf(ProtocolDecodeException.class).hasMessageContaining("M.a");
        assertThatThrownBy(() -> reader(0xFF).readStructMarker("M.c", false))
                .isInstanceOf(ProtocolDecodeException.class).hasMessageContaining("M.c");
    }

    @Test
    void shouldRejectLengthsBeyondTheRemainingBytes() {
        assertThatThrownBy(() -> reader(0x7F, 0xFF, 0xFF, 0xFF, 1, 2).readArrayLength("ProduceRequest.topicData", false, false, 1))
                .isInstanceOf(ProtocolDecodeException.class)
                .hasMessage("ProduceRequest.topicData: array length 2147483647 exceeds remaining 2 bytes");
        assertThatThrownBy(() -> reader(0, 5, 'a').readString("M.s", false, false))
                .isInstanceOf(ProtocolDecodeException.class).hasMessageContaining("exceeds remaining 1");
        assertThatThrownBy(() -> reader(0, 0, 0, 9).readBytes("M.b", false, true))
                .isInstanceOf(ProtocolDecodeException.class);
        assertThatThrownBy(() -> reader(0x05, 1).readRecords("M.r", true, true))
                .isInstanceOf(ProtocolDecodeException.class);
        // a compact length whose unsigned value does not fit an int
        assertThatThrownBy(() -> reader(0xFF, 0xFF, 0xFF, 0xFF, 0x0F).readArrayLength("M.a", true, true, 1))
                .isInstanceOf(ProtocolDecodeException.class).hasMessageContaining("exceeds remaining");
    }

    @Test
    void shouldRejectCountsWhoseElementsCannotFitTheRemainingBytes() {
        // 3 elements of at least 4 bytes need 12, only 11 remain: rejected before any element is read
        assertThatThrownBy(() -> reader(0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
                .readArrayLength("M.partitions", false, false, 4))
                .isInstanceOf(ProtocolDecodeException.class)
                .hasMessage("M.partitions: array length 3 of elements of at least 4 bytes exceeds remaining 11 bytes");
        assertThat(reader(0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
                .readArrayLength("M.partitions", false, false, 4)).isEqualTo(3);
        // the product is computed without overflow: 2^30 elements of 4 bytes with 16 remaining
        assertThatThrownBy(() -> reader(0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
                .readArrayLength("M.a", false, false, 4))
                .isInstanceOf(ProtocolDecodeException.class).hasMessageContaining("exceeds remaining 16 bytes");
        // a compact count (length + 1) of 2 uuids with 31 bytes left
        int[] twoUuidsShort = new int[32];
        twoUuidsShort[0] = 3;
        assertThatThrownBy(() -> reader(twoUuidsShort).readArrayLength("M.ids", true, false, 16))
                .isInstanceOf(ProtocolDecodeException.class).hasMessageContaining("at least 16 bytes");
        // a minimum below one counts as one, so a count never exceeds the remaining bytes
        assertThatThrownBy(() -> reader(0, 0, 0, 2, 0).readArrayLength("M.a", false, false, 0))
                .isInstanceOf(ProtocolDecodeException.class).hasMessage("M.a: array length 2 exceeds remaining 1 bytes");
    }

    @Test
    void shouldShareConstantsForEmptyValues() {
        assertThat(reader(0, 0).readString("f", false, false)).isSameAs("");
        ProtocolReader in = reader(1, 1, 1);
        assertThat(in.readBytes("f", true, false)).isEmpty();
        assertThat(in.readRecords("f", true, false)).isSameAs(BufferRecords.EMPTY);
        assertThat(in.readString("f", true, false)).isSameAs("");
    }

    @Test
    void shouldRejectNegativeLengthsOtherThanNull() {
        assertThatThrownBy(() -> reader(0xFF, 0xFE).readString("M.s", false, true))
                .isInstanceOf(ProtocolDecodeException.class).hasMessageContaining("negative");
        assertThatThrownBy(() -> reader(0x80, 0, 0, 0).readArrayLength("M.a", false, true, 1))
                .isInstanceOf(ProtocolDecodeException.class).hasMessageContaining("negative");
    }

    @Test
    void shouldSliceRecordsWithoutCopying() {
        ByteBuffer buf = write(out -> {
            out.writeInt(3);
            out.writeByteArray(new byte[] {7, 8, 9});
            out.writeByte((byte) 42);
        });
        ProtocolReader in = new ProtocolReader(buf);
        BufferRecords records = (BufferRecords) in.readRecords("f", false, true);
        assertThat(records.sizeInBytes()).isEqualTo(3);
        ByteBuffer view = records.buffer();
        assertThat(view.isReadOnly()).isTrue();
        assertThat(view.get(0)).isEqualTo((byte) 7);
        buf.put(4, (byte) 99); // the view shares the request buffer
        assertThat(records.buffer().get(0)).isEqualTo((byte) 99);
        assertThat(in.readInt8("f")).isEqualTo((byte) 42);
    }

    @Test
    void shouldSkipUnknownTaggedFieldsAfterCheckingTheirSize() {
        ByteBuffer buf = write(out -> {
            out.writeUnsignedVarint(2);
            out.writeUnsignedVarint(5);
            out.writeUnsignedVarint(2);
            out.writeShort((short) 1);
            out.writeUnsignedVarint(9);
            out.writeUnsignedVarint(0);
            out.writeByte((byte) 77);
        });
        ProtocolReader in = new ProtocolReader(buf);
        in.skipTaggedFields("f");
        assertThat(in.readInt8("f")).isEqualTo((byte) 77);

        assertThatThrownBy(() -> reader(1, 0, 50, 1, 2).skipTaggedFields("M._taggedFields"))
                .isInstanceOf(ProtocolDecodeException.class).hasMessageContaining("tagged field size 50");
        assertThatThrownBy(() -> reader(0x7F).skipTaggedFields("M._taggedFields"))
                .isInstanceOf(ProtocolDecodeException.class).hasMessageContaining("tagged field count 127");
    }

    @Test
    void shouldRejectNegativeSkip() {
        assertThatThrownBy(() -> reader(1, 2).skip("f", -1)).isInstanceOf(ProtocolDecodeException.class);
    }

    @Test
    void shouldAcceptAnyNonZeroByteAsTrueLikeKafka() {
        assertThat(reader(2).readBoolean("f")).isTrue();
    }
}
