package io.brook.server.security.quota;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Who a quota applies to: a user, a client id, both, or an IP address, each either named or the
 * default entity of its type (Kafka's {@code <default>}, a null name on the wire). A part that is
 * absent is not part of the entity: {@code user=alice} alone is not {@code user=alice,
 * client-id=<default>}.
 *
 * @param user the user part: null when absent, {@link Name#DEFAULT} or a name
 * @param clientId the client-id part, likewise
 * @param ip the ip part, likewise (never combined with the others)
 */
public record QuotaEntity(Name user, Name clientId, Name ip) {

    public static final String USER = "user";
    public static final String CLIENT_ID = "client-id";
    public static final String IP = "ip";

    /** One part's name; {@code value} null is the default entity of the type. */
    public record Name(String value) {
        public static final Name DEFAULT = new Name(null);

        public static Name of(String value) {
            return value == null ? DEFAULT : new Name(value);
        }

        public boolean isDefault() {
            return value == null;
        }
    }

    /** The parts in Kafka's order (user, client-id, ip): type to name, a null name the default. */
    public Map<String, String> parts() {
        Map<String, String> out = new LinkedHashMap<>();
        if (user != null) {
            out.put(USER, user.value());
        }
        if (clientId != null) {
            out.put(CLIENT_ID, clientId.value());
        }
        if (ip != null) {
            out.put(IP, ip.value());
        }
        return out;
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder();
        parts().forEach((type, name) -> b.append(b.length() == 0 ? "" : ",").append(type).append('=')
                .append(name == null ? "<default>" : name));
        return b.toString();
    }
}
