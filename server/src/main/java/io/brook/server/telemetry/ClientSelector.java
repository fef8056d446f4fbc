package io.brook.server.telemetry;

import java.util.Set;
import java.util.UUID;

/**
 * What a subscription's {@code match} patterns look at, for one client instance: its assigned
 * instance id, the client id of its request header, the software name and version it sent in
 * ApiVersions (v3+, "unknown" before) and the address and port it connects from.
 */
public record ClientSelector(UUID clientInstanceId, String clientId, String softwareName, String softwareVersion,
        String sourceAddress, int sourcePort) {

    public static final String CLIENT_INSTANCE_ID = "client_instance_id";
    public static final String CLIENT_ID = "client_id";
    public static final String CLIENT_SOFTWARE_NAME = "client_software_name";
    public static final String CLIENT_SOFTWARE_VERSION = "client_software_version";
    public static final String CLIENT_SOURCE_ADDRESS = "client_source_address";
    public static final String CLIENT_SOURCE_PORT = "client_source_port";

    /** The selectors a {@code match} pattern may name. */
    public static final Set<String> SELECTORS = Set.of(CLIENT_INSTANCE_ID, CLIENT_ID, CLIENT_SOFTWARE_NAME,
            CLIENT_SOFTWARE_VERSION, CLIENT_SOURCE_ADDRESS, CLIENT_SOURCE_PORT);

    /** This client's value for {@code selector} (one of {@link #SELECTORS}). */
    public String value(String selector) {
        String v = switch (selector) {
            case CLIENT_INSTANCE_ID -> TelemetryIds.toKafkaString(clientInstanceId);
            case CLIENT_ID -> clientId;
            case CLIENT_SOFTWARE_NAME -> softwareName;
            case CLIENT_SOFTWARE_VERSION -> softwareVersion;
            case CLIENT_SOURCE_ADDRESS -> sourceAddress;
            case CLIENT_SOURCE_PORT -> Integer.toString(sourcePort);
            default -> throw new IllegalArgumentException(selector);
        };
        return v == null ? "" : v;
    }

    /** The same client with its assigned instance id. */
    public ClientSelector withInstanceId(UUID id) {
        return new ClientSelector(id, clientId, softwareName, softwareVersion, sourceAddress, sourcePort);
    }
}
