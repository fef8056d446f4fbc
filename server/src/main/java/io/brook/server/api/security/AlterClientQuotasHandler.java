package io.brook.server.api.security;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.security.quota.ClientQuotaStore;
import io.brook.server.security.quota.QuotaEntity;
import io.brook.server.security.quota.QuotaKey;
import io.brook.wire.message.AlterClientQuotasRequest;
import io.brook.wire.message.AlterClientQuotasRequest.EntryData;
import io.brook.wire.message.AlterClientQuotasRequest.OpData;
import io.brook.wire.message.AlterClientQuotasResponse;
import io.brook.wire.protocol.Errors;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * AlterClientQuotas (key 49): sets and removes quota settings, with Kafka's checks, each entry
 * answered on its own. An entity must have at least one part, each of type user, client-id or ip
 * at most once, no empty name, and ip never with the others; ip entities take only
 * {@code connection_creation_rate}, user and client-id entities only the other keys; a value
 * must be positive and, for the byte and connection rates, whole. An entry naming a key twice,
 * or an entity already altered earlier in the request, is INVALID_REQUEST. The accepted changes
 * of all entries are written durably, together, before the answer (nothing with
 * {@code validate_only}; in cluster mode to the metadata log, applied on this node, and
 * {@link FailedChange} when that fails), and apply to the next request.
 */
public final class AlterClientQuotasHandler implements ApiHandler<AlterClientQuotasRequest> {

    private final ClientQuotaStore store;

    public AlterClientQuotasHandler(ClientQuotaStore store) {
        this.store = store;
    }

    @Override
    public boolean runsOnEventLoop(AlterClientQuotasRequest request) {
        return false; // an ip entity's name may need a DNS lookup, and the change an fsync
    }

    @Override
    public void handle(RequestContext ctx, AlterClientQuotasRequest request) {
        List<AlterClientQuotasResponse.EntryData> results = new ArrayList<>();
        List<ClientQuotaStore.Change> changes = new ArrayList<>();
        Set<QuotaEntity> seen = new HashSet<>();
        for (EntryData e : request.entries()) {
            List<ClientQuotaStore.Change> mine = new ArrayList<>();
            String problem = check(e, seen, mine);
            List<AlterClientQuotasResponse.EntityData> names = new ArrayList<>();
            e.entity().forEach(d -> names.add(new AlterClientQuotasResponse.EntityData().entityType(d.entityType())
                    .entityName(d.entityName())));
            results.add(new AlterClientQuotasResponse.EntryData()
                    .entity(ClientQuotaOrder.components(names, AlterClientQuotasResponse.EntityData::entityType))
                    .errorCode(problem == null ? Errors.NONE.code() : Errors.INVALID_REQUEST.code())
                    .errorMessage(problem));
            if (problem == null) {
                changes.addAll(mine);
            }
        }
        if (request.validateOnly() || changes.isEmpty()) {
            ctx.respond(new AlterClientQuotasResponse().entries(results));
            return;
        }
        store.apply(changes).whenComplete((v, ex) -> FailedChange.answer(ctx, ex,
                f -> results.stream().filter(r -> r.errorCode() == Errors.NONE.code())
                        .forEach(r -> r.errorCode(f.error().code()).errorMessage(f.message())),
                () -> new AlterClientQuotasResponse().entries(results)));
    }

    /** Kafka's complaint about entry {@code e}, or null with its changes added to {@code out}. */
    private String check(EntryData e, Set<QuotaEntity> seen, List<ClientQuotaStore.Change> out) {
        if (e.entity().isEmpty()) {
            return "Invalid empty client quota entity";
        }
        QuotaEntity.Name user = null;
        QuotaEntity.Name client = null;
        QuotaEntity.Name ip = null;
        for (AlterClientQuotasRequest.EntityData d : e.entity()) {
            String type = d.entityType();
            QuotaEntity.Name name = QuotaEntity.Name.of(d.entityName());
            boolean duplicate = switch (type) {
                case QuotaEntity.USER -> user != null;
                case QuotaEntity.CLIENT_ID -> client != null;
                case QuotaEntity.IP -> ip != null;
                default -> false;
            };
            if (duplicate) {
                return "Invalid client quota entity, duplicate entity entry " + type;
            }
            switch (type) {
                case QuotaEntity.USER -> user = name;
                case QuotaEntity.CLIENT_ID -> client = name;
                case QuotaEntity.IP -> ip = name;
                default -> {
                    return "Unhandled client quota entity type: " + type;
                }
            }
            if (d.entityName() != null && d.entityName().isEmpty()) {
                return "Empty " + type + " not supported";
            }
        }
        QuotaEntity entity = new QuotaEntity(user, client, ip);
        if (!seen.add(entity)) {
            return "Ignoring duplicate entity " + entity;
        }
        if (ip != null) {
            if (user != null || client != null) {
                return "Invalid quota entity combination, IP entity should not be combined with User or ClientId";
            }
            if (!ip.isDefault() && !resolvable(ip.value())) {
                return ip.value() + " is not a valid IP or resolvable host.";
            }
        }
        Set<String> keys = new HashSet<>();
        Map<QuotaKey, Double> current = store.all().getOrDefault(entity, Map.of());
        for (OpData op : e.ops()) {
            if (!keys.add(op.key())) {
                return "Duplicate quota key " + op.key() + " not updating quota for this entity " + entity;
            }
            QuotaKey key = QuotaKey.of(op.key());
            if (op.remove()) {
                if (key != null && current.containsKey(key)) {
                    out.add(new ClientQuotaStore.Change(entity, key, null));
                }
                continue;
            }
            if (key == null || key.forIp() != (ip != null)) {
                return "Invalid configuration key " + op.key();
            }
            String problem = key.problem(op.value());
            if (problem != null) {
                return problem;
            }
            out.add(new ClientQuotaStore.Change(entity, key, op.value()));
        }
        return null;
    }

    private static boolean resolvable(String host) {
        try {
            InetAddress.getByName(host);
            return true;
        } catch (UnknownHostException | SecurityException e) {
            return false;
        }
    }
}
