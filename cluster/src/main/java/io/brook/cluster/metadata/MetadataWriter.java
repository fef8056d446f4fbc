package io.brook.cluster.metadata;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;

/** Writes the primitives of the metadata format (big-endian), the mirror of {@link MetadataReader}. */
public final class MetadataWriter {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final DataOutputStream out = new DataOutputStream(bytes);

    public MetadataWriter writeByte(int v) {
        try {
            out.writeByte(v);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    public MetadataWriter writeShort(int v) {
        try {
            out.writeShort(v);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    public MetadataWriter writeInt(int v) {
        try {
            out.writeInt(v);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    public MetadataWriter writeLong(long v) {
        try {
            out.writeLong(v);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    public MetadataWriter writeUuid(UUID v) {
        return writeLong(v.getMostSignificantBits()).writeLong(v.getLeastSignificantBits());
    }

    public MetadataWriter writeNullableString(String s) {
        if (s == null) {
            return writeShort(-1);
        }
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        if (b.length > Short.MAX_VALUE) {
            throw new IllegalArgumentException("string of " + b.length + " bytes is longer than " + Short.MAX_VALUE);
        }
        writeShort(b.length);
        return writeBytes(b);
    }

    public MetadataWriter writeIntList(List<Integer> list) {
        writeInt(list.size());
        for (int v : list) {
            writeInt(v);
        }
        return this;
    }

    public MetadataWriter writeEndpoints(List<Endpoint> list) {
        writeInt(list.size());
        for (Endpoint e : list) {
            writeNullableString(e.name()).writeNullableString(e.host()).writeInt(e.port());
        }
        return this;
    }

    public MetadataWriter writeDouble(double v) {
        return writeLong(Double.doubleToLongBits(v));
    }

    /** A byte array as its i32 length and its bytes. */
    public MetadataWriter writeByteArray(byte[] b) {
        writeInt(b.length);
        return writeBytes(b);
    }

    public MetadataWriter writeBytes(byte[] b) {
        try {
            out.write(b);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    public byte[] toByteArray() {
        return bytes.toByteArray();
    }
}
