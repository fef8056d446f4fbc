package io.brook.server.api.security;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.security.quota.ClientQuotaStore;
import io.brook.server.security.quota.QuotaEntity;
import io.brook.wire.message.DescribeClientQuotasRequest;
import io.brook.wire.message.DescribeClientQuotasRequest.ComponentData;
import io.brook.wire.message.DescribeClientQuotasResponse;
import io.brook.wire.message.DescribeClientQuotasResponse.EntityData;
import io.brook.wire.message.DescribeClientQuotasResponse.EntryData;
import io.brook.wire.message.DescribeClientQuotasResponse.ValueData;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * DescribeClientQuotas (key 48): the quota settings of the entities a filter matches, as Kafka
 * answers it. Each filter component names an entity type and matches an exact name (0), the
 * default entity (1) or any entity with that type (2); an entity matches when it has every
 * component's type with a matching name, and, with {@code strict}, no other type. A filter that
 * names a type twice, an unknown match type, a name where none belongs (or none where one does)
 * or ip together with user or client-id fails the request with INVALID_REQUEST; an unknown
 * entity type with UNSUPPORTED_VERSION.
 */
public final class DescribeClientQuotasHandler implements ApiHandler<DescribeClientQuotasRequest> {

    private static final byte EXACT = 0;
    private static final byte DEFAULT = 1;
    private static final byte SPECIFIED = 2;

    private final ClientQuotaStore store;

    public DescribeClientQuotasHandler(ClientQuotaStore store) {
        this.store = store;
    }

    @Override
    public void handle(RequestContext ctx, DescribeClientQuotasRequest request) {
        Map<String, String> exact = new HashMap<>();
        Set<String> typed = new HashSet<>();
        for (ComponentData c : request.components()) {
            String type = c.entityType();
            String problem = null;
            Errors error = Errors.INVALID_REQUEST;
            if (type.isEmpty()) {
                problem = "Invalid empty entity type.";
            } else if (exact.containsKey(type) || typed.contains(type)) {
                problem = "Entity type " + type + " cannot appear more than once in the filter.";
            } else if (!type.equals(QuotaEntity.USER) && !type.equals(QuotaEntity.CLIENT_ID)
                    && !type.equals(QuotaEntity.IP)) {
                error = Errors.UNSUPPORTED_VERSION;
                problem = "Unsupported entity type " + type;
            } else if (c.matchType() == EXACT) {
                if (c.match() == null) {
                    problem = "Request specified MATCH_TYPE_EXACT, but set match string to null.";
                }
                exact.put(type, c.match());
            } else if (c.matchType() == DEFAULT || c.matchType() == SPECIFIED) {
                if (c.match() != null) {
                    problem = "Request specified " + (c.matchType() == DEFAULT ? "MATCH_TYPE_DEFAULT" : "MATCH_TYPE_SPECIFIED")
                            + ", but also specified a match string.";
                }
                if (c.matchType() == DEFAULT) {
                    exact.put(type, null);
                } else {
                    typed.add(type);
                }
            } else {
                problem = "Unknown match type " + c.matchType();
            }
            if (problem != null) {
                ctx.respond(failed(error, problem));
                return;
            }
        }
        boolean ip = exact.containsKey(QuotaEntity.IP) || typed.contains(QuotaEntity.IP);
        if (ip && exact.size() + typed.size() > 1) {
            ctx.respond(failed(Errors.INVALID_REQUEST, "Invalid entity filter component combination. IP filter "
                    + "component should not be used with user or clientId filter component."));
            return;
        }
        List<EntryData> entries = new ArrayList<>();
        store.all().forEach((entity, settings) -> {
            Map<String, String> parts = entity.parts();
            if (matches(parts, exact, typed, request.strict())) {
                List<EntityData> names = new ArrayList<>();
                parts.forEach((type, name) -> names.add(new EntityData().entityType(type).entityName(name)));
                List<ValueData> values = new ArrayList<>();
                ClientQuotaOrder.values(settings).forEach((k, v) -> values.add(new ValueData().key(k).value(v)));
                entries.add(new EntryData().entity(ClientQuotaOrder.components(names, EntityData::entityType))
                        .values(values));
            }
        });
        ctx.respond(new DescribeClientQuotasResponse().errorCode(Errors.NONE.code()).entries(entries));
    }

    private static boolean matches(Map<String, String> parts, Map<String, String> exact, Set<String> typed,
            boolean strict) {
        if (strict && parts.size() != exact.size() + typed.size()) {
            return false;
        }
        for (Map.Entry<String, String> e : exact.entrySet()) {
            if (!parts.containsKey(e.getKey()) || !Objects.equals(parts.get(e.getKey()), e.getValue())) {
                return false;
            }
        }
        return parts.keySet().containsAll(typed);
    }

    private static DescribeClientQuotasResponse failed(Errors error, String message) {
        return new DescribeClientQuotasResponse().errorCode(error.code()).errorMessage(message).entries(null);
    }
}
