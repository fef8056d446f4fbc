package io.brook.server.api.security;

import io.brook.server.security.quota.QuotaEntity;
import io.brook.server.security.quota.QuotaKey;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The order of the parts of a quota answer, as Kafka gives it. Kafka lists an entity's
 * components and an entity's values in the iteration order of the hash maps it keeps them in:
 * the client id before the user, and the values in an order that depends only on which keys are
 * set (consumer_byte_rate, request_percentage, producer_byte_rate for those three). Clients that
 * compare answers as lists (platformatic's Kafka client tests do) see the same lists from Brook.
 * The order of the entities among themselves is Brook's own (the order they were first set).
 */
final class ClientQuotaOrder {

    private ClientQuotaOrder() {
    }

    /** {@code components} with client-id first, then user, then any other type, each keeping its place among its kind. */
    static <T> List<T> components(List<T> components, Function<T, String> type) {
        List<T> out = new ArrayList<>(components);
        out.sort(Comparator.comparingInt(c -> rank(type.apply(c))));
        return out;
    }

    private static int rank(String type) {
        return switch (type) {
            case QuotaEntity.CLIENT_ID -> 0;
            case QuotaEntity.USER -> 1;
            default -> 2;
        };
    }

    /**
     * An entity's values in Kafka's order: a hash map of the changed keys, copied entry by entry
     * into a hash map that starts empty (as Kafka's image applies a change to an entity that had
     * no values), iterated.
     */
    static Map<String, Double> values(Map<QuotaKey, Double> settings) {
        Map<String, Double> changes = new HashMap<>();
        settings.forEach((k, v) -> changes.put(k.key(), v));
        Map<String, Double> image = new HashMap<>(0);
        changes.forEach(image::put);
        return image;
    }
}
