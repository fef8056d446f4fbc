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
     * (api, version) pairs inside our codec range that the kafka-clients in test scope cannot write
     * or read, keyed {@code "API_KEY vN"}, with the reason; none with kafka-clients 4.4.0, whose
     * ranges end where ours do. The oracle range of kafka-clients includes its unstable latest
     * versions (they have schemas, see {@link KafkaWire#highestVersion}); in 4.4.0 that is
     * InitProducerId v6, which is therefore covered. Versions below kafka-clients' minimum (KIP-896
     * removals) do not appear: our codec starts where 4.x does (Produce v3, Fetch v4, ...), and
     * JoinGroup v0-1 came back in 4.0.1.
     */
    static final Map<String, String> NOT_IN_KAFKA_CLIENTS = new TreeMap<>(Map.of());

    /**
     * Oracle cases that fail because of a codec bug that is not yet fixed, keyed
     * {@code "API_KEY vN request|response"}, with the precise reason. Such a case is reported as
     * aborted with this reason while it fails, and fails once it passes (remove it from here then).
     */
    static final Map<String, String> KNOWN_CODEC_FAILURES = new TreeMap<>(Map.of());

    /** Oldest version both we and kafka-clients speak. */
    static short oracleFrom(ApiKey key) {
        ApiMessageType type = ApiMessageType.fromApiKey(key.id());
        return (short) Math.max(key.oldestVersion(), type.lowestSupportedVersion());
    }

    /** Newest version both we and kafka-clients speak (kafka-clients' unstable ones included). */
    static short oracleTo(ApiKey key) {
        ApiMessageType type = ApiMessageType.fromApiKey(key.id());
        return (short) Math.min(key.latestVersion(), KafkaWire.highestVersion(type));
    }

    static String pair(ApiKey key, short version) {
        return key.name() + " v" + version;
    }
}
