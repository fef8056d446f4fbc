package io.brook.wire.message;

import io.brook.wire.protocol.ProtocolDecodeException;
import io.brook.wire.protocol.ProtocolReader;
import io.brook.wire.protocol.ProtocolWriter;
import io.brook.wire.protocol.Records;
import io.brook.wire.protocol.Utf8;
import io.brook.wire.protocol.Varints;
import java.util.List;
import java.util.UUID;

/**
 * Encoding helpers shared by the generated message classes: length prefixes in their classic
 * (int16/int32) and compact (unsigned varint of length + 1, 0 = null) forms, and the checks that
 * turn a message a version cannot express into a clear exception.
 */
final class MessageUtil {

    static final UUID ZERO_UUID = new UUID(0L, 0L);
    static final byte[] EMPTY_BYTES = new byte[0];

    private MessageUtil() {
    }

    static void checkVersion(String message, short version, short lowest, short highest) {
        if (version < lowest || version > highest) {
            throw new IllegalArgumentException(message + ": cannot encode version " + version
                    + " (codec supports " + lowest + "-" + highest + ")");
        }
    }

    static IllegalArgumentException cannotWrite(String field, short version) {
        return new IllegalArgumentException(field + ": has a non-default value that version " + version
                + " cannot carry");
    }

    static IllegalArgumentException nullNotAllowed(String field, short version) {
        return new IllegalArgumentException(field + ": null is not allowed at version " + version);
    }

    static void checkNotNull(String field, Object value, short version) {
        if (value == null) {
            throw nullNotAllowed(field, version);
        }
    }

    /** After reading a known tagged field: it must not overrun its declared size; skip any rest. */
    static void endTaggedField(ProtocolReader in, String field, int end) {
        int pos = in.position();
        if (pos > end) {
            throw new ProtocolDecodeException(field + ": tagged field read " + (pos - end) + " bytes past its declared size");
        }
        in.skip(field, end - pos);
    }

    private static int sizeOfLength(int length, boolean compact, int classicWidth) {
        return compact ? Varints.sizeOfUnsignedVarint(length + 1) : classicWidth;
    }

    private static void writeLength(ProtocolWriter out, int length, boolean compact, boolean int16) {
        if (compact) {
            out.writeUnsignedVarint(length + 1);
        } else if (int16) {
            out.writeShort((short) length);
        } else {
            out.writeInt(length);
        }
    }

    // strings

    static int sizeOfString(String s, boolean compact) {
        if (s == null) {
            return compact ? 1 : 2;
        }
        int length = Utf8.encodedLength(s);
        return sizeOfLength(length, compact, 2) + length;
    }

    static void writeString(ProtocolWriter out, String field, String s, boolean compact, boolean nullable, short version) {
        if (s == null) {
            if (!nullable) {
                throw nullNotAllowed(field, version);
            }
            writeLength(out, -1, compact, true);
            return;
        }
        int length = Utf8.encodedLength(s);
        if (!compact && length > Short.MAX_VALUE) {
            throw new IllegalArgumentException(field + ": string of " + length + " bytes exceeds 32767");
        }
        writeLength(out, length, compact, true);
        out.writeUtf8(s, length);
    }

    /** What {@link #fitErrorMessage} puts at the end of a message it shortened. */
    static final String TRUNCATED = "... (truncated)";

    /**
     * {@code s}, or when its UTF-8 form is longer than a classic string can carry (32,767 bytes:
     * a message that quotes a client's long input, say), its beginning with {@link #TRUNCATED}
     * after it, so that the answer still carries its error code instead of failing to encode.
     * The generated setters of error-message fields call it.
     */
    static String fitErrorMessage(String s) {
        if (s == null || s.length() <= Short.MAX_VALUE / 3 || Utf8.encodedLength(s) <= Short.MAX_VALUE) {
            return s;
        }
        int room = Short.MAX_VALUE - TRUNCATED.length();
        int end = Math.min(s.length(), room);
        while (Utf8.encodedLength(s.substring(0, end)) > room) {
            end -= Math.max(1, (Utf8.encodedLength(s.substring(0, end)) - room) / 3);
        }
        if (end > 0 && Character.isHighSurrogate(s.charAt(end - 1))) {
            end--;
        }
        return s.substring(0, end) + TRUNCATED;
    }

    // bytes

    static int sizeOfBytes(byte[] b, boolean compact) {
        if (b == null) {
            return compact ? 1 : 4;
        }
        return sizeOfLength(b.length, compact, 4) + b.length;
    }

    static void writeBytes(ProtocolWriter out, String field, byte[] b, boolean compact, boolean nullable, short version) {
        if (b == null) {
            if (!nullable) {
                throw nullNotAllowed(field, version);
            }
            writeLength(out, -1, compact, false);
            return;
        }
        writeLength(out, b.length, compact, false);
        out.writeByteArray(b);
    }

    // records

    static int sizeOfRecords(Records r, boolean compact) {
        if (r == null) {
            return compact ? 1 : 4;
        }
        int length = r.sizeInBytes();
        return sizeOfLength(length, compact, 4) + length;
    }

    static void writeRecords(ProtocolWriter out, String field, Records r, boolean compact, boolean nullable, short version) {
        if (r == null) {
            if (!nullable) {
                throw nullNotAllowed(field, version);
            }
            writeLength(out, -1, compact, false);
            return;
        }
        writeLength(out, r.sizeInBytes(), compact, false);
        out.writeRecords(r);
    }

    // arrays

    static int sizeOfArrayLength(List<?> list, boolean compact) {
        if (list == null) {
            return compact ? 1 : 4;
        }
        return sizeOfLength(list.size(), compact, 4);
    }

    static void writeArrayLength(ProtocolWriter out, String field, List<?> list, boolean compact, boolean nullable, short version) {
        if (list == null) {
            if (!nullable) {
                throw nullNotAllowed(field, version);
            }
            writeLength(out, -1, compact, false);
            return;
        }
        writeLength(out, list.size(), compact, false);
    }
}
