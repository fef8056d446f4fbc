package io.brook.wire.oracle;

import java.util.Map;
import java.util.TreeMap;

import io.brook.wire.protocol.ApiKey;
import org.apache.kafka.common.message.ApiMessageType;

/**
 * Everything the message oracle does not check, with the reason, so that nothing is skipped
 * silently. {@link MessageRoundTripOracleTest} fails when the computed gaps differ from these lists
 * (in either direction), and when a listed known failure starts to pass.
 */
final class OracleCoverage {

    private OracleCoverage() {
    }

    /**
     * (api, version) pairs inside our codec range that kafka-clients 4.1.0 cannot write or read,
     * keyed {@code "API_KEY vN"}. The oracle range of kafka-clients includes its unstable latest
     * versions (they have schemas), see {@link KafkaWire#highestVersion}.
     */
    static final Map<String, String> NOT_IN_KAFKA_CLIENTS_4_1 = new TreeMap<>(Map.of(
            "LIST_OFFSETS v11", "added in Apache Kafka 4.2 (EARLIEST_PENDING_UPLOAD timestamp, KIP-1023)",
            "API_VERSIONS v5", "added in Apache Kafka 4.4 (cluster_id/node_id, KIP-1242)",
            "DELETE_GROUPS v3", "added in Apache Kafka 4.4",
            "TXN_OFFSET_COMMIT v6", "added in Apache Kafka 4.4 (topic ids)"));

    /**
     * Oracle cases that fail because of a codec bug that is not yet fixed, keyed
     * {@code "API_KEY vN request|response"}, with the precise reason. Such a case is reported as
     * aborted with this reason while it fails, and fails once it passes (remove it from here then).
     */
    static final Map<String, String> KNOWN_CODEC_FAILURES = new TreeMap<>(Map.of());

    /** Oldest version both sides speak, or -1. */
    static short oracleFrom(ApiKey key) {
        ApiMessageType type = ApiMessageType.fromApiKey(key.id());
        return (short) Math.max(key.oldestVersion(), type.lowestSupportedVersion());
    }

    /** Newest version both sides speak. */
    static short oracleTo(ApiKey key) {
        ApiMessageType type = ApiMessageType.fromApiKey(key.id());
        return (short) Math.min(key.latestVersion(), KafkaWire.highestVersion(type));
    }

    static String pair(ApiKey key, short version) {
        return key.name() + " v" + version;
    }
}
