package io.brook.reliability;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Makes the TLS fuzzer's raw client flights from valid ones (a ClientHello record as a client
 * sends it, or a later flight of a handshake): unchanged ones; bytes damaged anywhere
 * ({@link ByteMutations}); the handshake damaged behind a record length that still fits; record
 * lengths that lie (zero, one, just over TLS's 16 KiB plaintext and 18 KiB ciphertext limits, the
 * 16-bit maximum); handshake lengths that lie (the 24-bit maximum among them); unknown and
 * unexpected content types and versions; a valid handshake in fragments of a few bytes, or behind
 * a run of empty records; two flights spliced or one sent twice; an SSLv2-style hello, an HTTP
 * request, random bytes; flights cut short. Deterministic for a given {@link Random}; not
 * thread-safe.
 */
final class TlsRecordMutator {
    /** The TLS record header: content type, version, length. */
    static final int RECORD_HEADER = 5;
    static final byte HANDSHAKE = 22;

    /** Bytes to send; {@code closeAfter} when the broker may be left waiting for more (the connection is then closed). */
    record Flight(byte[] bytes, boolean closeAfter, Kind kind) {
    }

    enum Kind {
        VALID, BYTES, BODY, RECORD_LENGTH, HANDSHAKE_LENGTH, CONTENT_TYPE, VERSION, FRAGMENTS, EMPTY_RECORDS, SPLICE,
        TWICE, FOREIGN, TRUNCATED
    }

    private static final int[] RECORD_LENGTHS = {0, 1, 3, 4, 16_384, 16_385, 16_640, 18_432, 18_433, 65_535};
    private static final int[] HANDSHAKE_LENGTHS = {0, 1, 3, 16_384, 65_536, 0x7F_FFFF, 0xFF_FFFF};
    private static final int[] CONTENT_TYPES = {0, 20, 21, 23, 24, 25, 0x80, 0xFF};
    private static final int[] VERSIONS = {0x0000, 0x0002, 0x0200, 0x0300, 0x0301, 0x0302, 0x0303, 0x0304, 0x7F1C, 0xFFFF};
    private static final byte[] HTTP = "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    /** An SSLv2-style ClientHello header: two-byte length with the high bit set, msg type 1, version 3.1. */
    private static final byte[] SSL2_HELLO = {(byte) 0x80, 0x2E, 0x01, 0x03, 0x01, 0x00, 0x15, 0x00, 0x00, 0x00, 0x10};

    private final List<byte[]> seeds;
    private final Random random;
    private final ByteMutations bytes;

    /** {@code seeds}: flights of at least one whole record header and handshake header each. */
    TlsRecordMutator(List<byte[]> seeds, Random random) {
        for (byte[] seed : seeds) {
            if (seed.length < RECORD_HEADER + 4) {
                throw new IllegalArgumentException("a seed flight of " + seed.length + " bytes");
            }
        }
        this.seeds = seeds;
        this.random = random;
        this.bytes = new ByteMutations(random);
    }

    Flight next() {
        byte[] seed = seeds.get(random.nextInt(seeds.size()));
        int dice = random.nextInt(100);
        if (dice < 6) {
            return new Flight(seed, false, Kind.VALID);
        } else if (dice < 24) {
            return open(anyBytes(seed.clone()), Kind.BYTES);
        } else if (dice < 40) {
            return body(seed);
        } else if (dice < 50) {
            return recordLength(seed);
        } else if (dice < 58) {
            return handshakeLength(seed);
        } else if (dice < 64) {
            byte[] b = seed.clone();
            b[0] = (byte) CONTENT_TYPES[random.nextInt(CONTENT_TYPES.length)];
            return open(b, Kind.CONTENT_TYPE);
        } else if (dice < 70) {
            byte[] b = seed.clone();
            ByteBuffer.wrap(b).putShort(1, (short) VERSIONS[random.nextInt(VERSIONS.length)]);
            return open(b, Kind.VERSION);
        } else if (dice < 76) {
            return new Flight(fragments(seed, 1 + random.nextInt(8)), false, Kind.FRAGMENTS);
        } else if (dice < 79) {
            return new Flight(emptyRecords(seed, 1 + random.nextInt(64)), false, Kind.EMPTY_RECORDS);
        } else if (dice < 84) {
            return open(bytes.splice(seed, seeds.get(random.nextInt(seeds.size()))), Kind.SPLICE);
        } else if (dice < 87) {
            byte[] two = Arrays.copyOf(seed, 2 * seed.length);
            System.arraycopy(seed, 0, two, seed.length, seed.length);
            return new Flight(two, false, Kind.TWICE);
        } else if (dice < 94) {
            return open(foreign(), Kind.FOREIGN);
        }
        return new Flight(Arrays.copyOf(seed, random.nextInt(seed.length)), true, Kind.TRUNCATED);
    }

    private byte[] anyBytes(byte[] b) {
        return switch (random.nextInt(4)) {
            case 0 -> bytes.bitFlips(b);
            case 1 -> bytes.edgeBytes(b);
            case 2 -> bytes.insert(b);
            default -> bytes.delete(b);
        };
    }

    /**
     * The first record's fragment damaged and its length set to what follows, so that the broker
     * reads the whole record and parses the damaged handshake.
     */
    private Flight body(byte[] seed) {
        if (seed.length < RECORD_HEADER || recordLength(seed, 0) > seed.length - RECORD_HEADER) {
            return open(anyBytes(seed.clone()), Kind.BYTES);
        }
        int length = recordLength(seed, 0);
        if (length == 0) {
            return open(anyBytes(seed.clone()), Kind.BYTES);
        }
        byte[] fragment = anyBytes(Arrays.copyOfRange(seed, RECORD_HEADER, RECORD_HEADER + length));
        return new Flight(record(seed[0], version(seed), fragment), false, Kind.BODY);
    }

    private Flight recordLength(byte[] seed) {
        if (seed.length < RECORD_HEADER) {
            return open(seed, Kind.RECORD_LENGTH);
        }
        int actual = recordLength(seed, 0);
        int length = random.nextBoolean() ? RECORD_LENGTHS[random.nextInt(RECORD_LENGTHS.length)]
                : Math.max(0, actual + random.nextInt(33) - 16);
        byte[] b = seed.clone();
        ByteBuffer.wrap(b).putShort(3, (short) length);
        return new Flight(b, length > seed.length - RECORD_HEADER, Kind.RECORD_LENGTH);
    }

    /** Bytes 6–8 of a handshake record: the first handshake message's 24-bit length. */
    private Flight handshakeLength(byte[] seed) {
        if (seed.length < RECORD_HEADER + 4) {
            return open(seed, Kind.HANDSHAKE_LENGTH);
        }
        int actual = ((seed[6] & 0xFF) << 16) | ((seed[7] & 0xFF) << 8) | (seed[8] & 0xFF);
        int length = random.nextBoolean() ? HANDSHAKE_LENGTHS[random.nextInt(HANDSHAKE_LENGTHS.length)]
                : Math.max(0, actual + random.nextInt(33) - 16);
        byte[] b = seed.clone();
        b[6] = (byte) (length >>> 16);
        b[7] = (byte) (length >>> 8);
        b[8] = (byte) length;
        // a longer handshake message than the record holds may leave the broker waiting for more records
        return new Flight(b, length > actual, Kind.HANDSHAKE_LENGTH);
    }

    /** The records' fragments re-cut into records of at most {@code size} bytes each: still valid TLS. */
    static byte[] fragments(byte[] flight, int size) {
        ByteBuffer out = ByteBuffer.allocate(flight.length * (1 + RECORD_HEADER / size + 1) + RECORD_HEADER);
        int at = 0;
        while (at + RECORD_HEADER <= flight.length) {
            int length = Math.min(recordLength(flight, at), flight.length - at - RECORD_HEADER);
            for (int i = 0; i < length; i += size) {
                int n = Math.min(size, length - i);
                out.put(flight[at]).put(flight[at + 1]).put(flight[at + 2]).putShort((short) n);
                out.put(flight, at + RECORD_HEADER + i, n);
            }
            at += RECORD_HEADER + length;
        }
        out.put(flight, at, flight.length - at);
        return Arrays.copyOf(out.array(), out.position());
    }

    /** {@code count} handshake records of no bytes in front of the flight (TLS forbids them). */
    private static byte[] emptyRecords(byte[] flight, int count) {
        ByteBuffer out = ByteBuffer.allocate(count * RECORD_HEADER + flight.length);
        for (int i = 0; i < count; i++) {
            out.put(HANDSHAKE).putShort((short) 0x0303).putShort((short) 0);
        }
        return out.put(flight).array();
    }

    private byte[] foreign() {
        return switch (random.nextInt(3)) {
            case 0 -> HTTP.clone();
            case 1 -> SSL2_HELLO.clone();
            default -> bytes.junk(1024);
        };
    }

    private static Flight open(byte[] b, Kind kind) {
        // damaged lengths can leave the broker waiting for bytes that never come
        return new Flight(b, true, kind);
    }

    static int recordLength(byte[] flight, int at) {
        return ((flight[at + 3] & 0xFF) << 8) | (flight[at + 4] & 0xFF);
    }

    private static short version(byte[] flight) {
        return (short) (((flight[1] & 0xFF) << 8) | (flight[2] & 0xFF));
    }

    private static byte[] record(byte type, short version, byte[] fragment) {
        return ByteBuffer.allocate(RECORD_HEADER + fragment.length).put(type).putShort(version)
                .putShort((short) fragment.length).put(fragment).array();
    }
}
