package io.brook.cluster.metadata;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Reads the primitives of the metadata format from a buffer, checking every length and count
 * against the bytes that remain before it allocates anything: a hostile or torn input fails with
 * {@link CorruptMetadataException}, never with an {@code OutOfMemoryError} or a buffer exception.
 * Also used by the controller channel ({@code io.brook.cluster.member}), whose format shares these
 * primitives.
 */
public final class MetadataReader {
    private final ByteBuffer buf;

    public MetadataReader(ByteBuffer buf) {
        this.buf = buf;
    }

    public int remaining() {
        return buf.remaining();
    }

    private void need(int bytes, String what) {
        if (bytes > buf.remaining()) {
            throw new CorruptMetadataException(what + " needs " + bytes + " bytes, but only "
                    + buf.remaining() + " remain");
        }
    }

    public byte readByte(String what) {
        need(1, what);
        return buf.get();
    }

    public short readShort(String what) {
        need(2, what);
        return buf.getShort();
    }

    public int readInt(String what) {
        need(4, what);
        return buf.getInt();
    }

    public long readLong(String what) {
        need(8, what);
        return buf.getLong();
    }

    public double readDouble(String what) {
        need(8, what);
        return Double.longBitsToDouble(buf.getLong());
    }

    /** A byte array of i32 length and its bytes; the length is checked against what remains before allocating. */
    public byte[] readByteArray(String what) {
        int length = readInt(what + " length");
        if (length < 0) {
            throw new CorruptMetadataException(what + " has a negative length " + length);
        }
        need(length, what);
        byte[] bytes = new byte[length];
        buf.get(bytes);
        return bytes;
    }

    public UUID readUuid(String what) {
        need(16, what);
        return new UUID(buf.getLong(), buf.getLong());
    }

    /** A string of i16 length (-1 for null) and UTF-8 bytes. */
    public String readNullableString(String what) {
        short length = readShort(what + " length");
        if (length == -1) {
            return null;
        }
        if (length < 0) {
            throw new CorruptMetadataException(what + " has a negative length " + length);
        }
        need(length, what);
        byte[] bytes = new byte[length];
        buf.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    public String readString(String what) {
        String s = readNullableString(what);
        if (s == null) {
            throw new CorruptMetadataException(what + " is null");
        }
        return s;
    }

    /** A count of i32, checked against {@code minElementBytes} per element. */
    public int readCount(String what, int minElementBytes) {
        int count = readInt(what + " count");
        if (count < 0) {
            throw new CorruptMetadataException(what + " has a negative count " + count);
        }
        if ((long) count * minElementBytes > buf.remaining()) {
            throw new CorruptMetadataException("tried to read " + count + " " + what + " of at least "
                    + minElementBytes + " bytes each, but only " + buf.remaining() + " bytes remain");
        }
        return count;
    }

    public List<Integer> readIntList(String what) {
        int count = readCount(what, 4);
        List<Integer> list = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            list.add(buf.getInt());
        }
        return list;
    }

    public List<Endpoint> readEndpoints(String what) {
        // a name (2), a host (2) and a port (4) at least
        int count = readCount(what, 8);
        List<Endpoint> list = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            String name = readString(what + " name");
            String host = readString(what + " host");
            int port = readInt(what + " port");
            if (port < 0 || port > 65535) {
                throw new CorruptMetadataException(what + " has a port out of range: " + port);
            }
            list.add(new Endpoint(name, host, port));
        }
        return list;
    }

    /** Reads {@code size} bytes as a sub-reader, which must be consumed exactly by its caller. */
    public MetadataReader slice(int size, String what) {
        if (size < 0) {
            throw new CorruptMetadataException(what + " has a negative size " + size);
        }
        need(size, what);
        ByteBuffer slice = buf.slice();
        slice.limit(size);
        buf.position(buf.position() + size);
        return new MetadataReader(slice);
    }
}
