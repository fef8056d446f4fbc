package io.brook.server.telemetry;

import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.UUID;

/**
 * Client instance ids as Kafka writes them: {@code Uuid.toString()} is the 16 bytes in URL-safe
 * base64 without padding (22 characters), which is what a client's
 * {@code clientInstanceId()} returns and what the {@code client_instance_id} label shows.
 */
final class TelemetryIds {

    private static final UUID ZERO = new UUID(0, 0);
    /** Kafka's reserved ids: the zero id and the metadata topic's id. */
    private static final UUID METADATA_TOPIC = new UUID(0, 1);

    private TelemetryIds() {
    }

    static String toKafkaString(UUID id) {
        ByteBuffer b = ByteBuffer.allocate(16);
        b.putLong(id.getMostSignificantBits()).putLong(id.getLeastSignificantBits());
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b.array());
    }

    /** The zero id (a client asking for one) or Kafka's other reserved id. */
    static boolean isReserved(UUID id) {
        return ZERO.equals(id) || METADATA_TOPIC.equals(id);
    }

    /**
     * Whether Kafka would hand out {@code id}: not reserved, and (as Kafka's {@code randomUuid}
     * ensures, so that the id can be given on a command line) its string does not start with '-'.
     */
    static boolean assignable(UUID id) {
        return !isReserved(id) && toKafkaString(id).charAt(0) != '-';
    }
}
