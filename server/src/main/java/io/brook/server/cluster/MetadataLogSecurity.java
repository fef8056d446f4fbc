package io.brook.server.cluster;

import io.brook.cluster.controller.ControllerError;
import io.brook.cluster.controller.ControllerException;
import io.brook.cluster.member.ClusterMember;
import io.brook.cluster.metadata.MetadataCodec;
import io.brook.cluster.metadata.MetadataImage;
import io.brook.cluster.metadata.MetadataRecord;
import io.brook.cluster.metadata.MetadataRecord.AccessControlEntry;
import io.brook.cluster.metadata.MetadataRecord.ClientQuota;
import io.brook.cluster.metadata.MetadataRecord.DelegationTokenExpiry;
import io.brook.cluster.metadata.MetadataRecord.GroupConfig;
import io.brook.cluster.metadata.MetadataRecord.RemoveAccessControlEntry;
import io.brook.cluster.metadata.MetadataRecord.RemoveDelegationToken;
import io.brook.cluster.metadata.MetadataRecord.RemoveUserScramCredential;
import io.brook.cluster.metadata.MetadataRecord.UserScramCredential;
import io.brook.server.config.GroupConfigLog;
import io.brook.server.config.GroupConfigStore;
import io.brook.server.node.ClusterAdminException;
import io.brook.server.security.Acl;
import io.brook.server.security.Authorizer;
import io.brook.server.security.DelegationToken;
import io.brook.server.security.DelegationTokens;
import io.brook.server.security.LegacySecurityFiles;
import io.brook.server.security.ScramCredentials;
import io.brook.server.security.ScramCredentials.Stored;
import io.brook.server.security.ScramMechanism;
import io.brook.server.security.SecurityMetadataLog;
import io.brook.server.security.quota.ClientQuotaStore;
import io.brook.server.security.quota.QuotaEntity;
import io.brook.server.security.quota.QuotaKey;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cluster mode's keeper of the ACLs, SCRAM credentials, delegation tokens and client quotas, and
 * of the groups' own settings: records of the cluster's metadata log (docs/cluster.md section
 * 10a), so that every node enforces the same ones, and the coordinator of a group, on whichever
 * node, applies the settings given to it through any node.
 *
 * <ul>
 * <li>A change becomes records that the controller appends as one log entry ({@link
 *     ClusterMember#writeSecurity}); its future completes once the entry is applied on this node
 *     and this node's stores hold the result, so the client that made the change reads it back
 *     from the node it asked.
 * <li>After every applied entry that changed any of them ({@link MetadataImage#securityChanges()}),
 *     this node's {@link Authorizer}, {@link ScramCredentials}, {@link DelegationTokens},
 *     {@link ClientQuotaStore} and {@link GroupConfigStore} are given the image's state: each node
 *     enforces what its image holds. A token created, renewed or expired through one node is thus known to every node
 *     (each computes its HMAC from the secret key all are configured with).
 * <li>The users of {@code brook.sasl.scram.bootstrap.credentials} ({@link StartupSettings}) log in
 *     on this node from its start; once the node is registered, those the cluster does not have
 *     are written to the log, as are the settings a node of an earlier version kept in its own
 *     files.
 * </ul>
 *
 * <p>Threading: {@link #refresh()} runs on the metadata apply thread and on the threads that
 * complete changes; it is serialized, and the stores' snapshots are immutable.
 */
final class MetadataLogSecurity implements SecurityMetadataLog, GroupConfigLog {

    private static final Logger LOG = LoggerFactory.getLogger(MetadataLogSecurity.class);
    /** The most records of one log entry this class writes (the controller takes up to 10,000). */
    static final int ENTRY_RECORDS = 1000;
    /** About the most bytes of one log entry this class writes. */
    static final int ENTRY_BYTES = 1 << 20;

    private final ClusterMember member;
    private final Authorizer authorizer;
    private final ScramCredentials scram;
    private final DelegationTokens tokens;
    private final ClientQuotaStore quotas;
    private final GroupConfigStore groupConfigs;
    /** The bootstrap users, which this node accepts on its own until they are written to the log. */
    private final List<Stored> bootstrapUsers;
    private boolean bootstrapWritten;
    private long seenChanges = -1;
    /**
     * The image {@link #seenChanges} was counted on: a snapshot a node installs is a new image
     * whose count starts again. Compared by identity only, never read.
     */
    private Object seenImage;
    private volatile boolean closed;

    MetadataLogSecurity(ClusterMember member, Authorizer authorizer, ScramCredentials scram, DelegationTokens tokens,
            ClientQuotaStore quotas, GroupConfigStore groupConfigs, List<Stored> bootstrapUsers) {
        this.member = member;
        this.authorizer = authorizer;
        this.scram = scram;
        this.tokens = tokens;
        this.quotas = quotas;
        this.groupConfigs = groupConfigs;
        this.bootstrapUsers = List.copyOf(bootstrapUsers);
    }

    @Override
    public CompletableFuture<Void> addAcls(List<Acl> acls) {
        List<MetadataRecord> records = new ArrayList<>();
        for (Acl a : acls) {
            records.add(entry(a));
        }
        return write(records).thenApply(flags -> null);
    }

    @Override
    public CompletableFuture<Void> catchUp() {
        return member.readBarrier().handle((v, e) -> {
            Throwable c = e;
            while (c instanceof CompletionException && c.getCause() != null) {
                c = c.getCause();
            }
            if (c instanceof ControllerException ce && ce.error() == ControllerError.INVALID_REQUEST) {
                // a controller of an earlier version (a rolling upgrade): match on this node's image
                LOG.debug("The controller does not know the read barrier ({}); matching on this node's image",
                        ce.getMessage());
            } else if (c != null) {
                throw ClusterBroker.translate(c);
            }
            refresh();
            return null;
        });
    }

    @Override
    public CompletableFuture<List<Boolean>> removeAcls(List<Acl> acls) {
        List<MetadataRecord> records = new ArrayList<>();
        for (Acl a : acls) {
            records.add(RemoveAccessControlEntry.of(entry(a)));
        }
        return write(records);
    }

    @Override
    public CompletableFuture<Void> changeCredentials(List<ScramCredentials.Change> changes) {
        List<MetadataRecord> records = new ArrayList<>();
        for (ScramCredentials.Change c : changes) {
            Stored s = c.stored();
            records.add(s == null ? new RemoveUserScramCredential(c.user(), c.mechanism().type()) : credential(s));
        }
        return write(records).thenApply(flags -> null);
    }

    /**
     * Writes the tokens {@code created} ({@code DelegationToken} records), then the new expiries
     * ({@code DelegationTokenExpiry}), then the removals ({@code RemoveDelegationToken}; a removal
     * of an absent token applies). A new expiry the image did not apply (the token was removed
     * first, perhaps through another node) is not a failure: its token id is in the result, and
     * {@link DelegationTokens} answers DELEGATION_TOKEN_NOT_FOUND. A token or a removal the image
     * refused is malformed: the change fails with INVALID_REQUEST, so that no one is told of a
     * token the cluster does not hold.
     */
    @Override
    public CompletableFuture<Set<String>> changeTokens(List<DelegationToken> created, Map<String, Long> newExpiries,
            List<String> removed) {
        List<MetadataRecord> records = new ArrayList<>();
        for (DelegationToken t : created) {
            records.add(token(t));
        }
        List<String> expiryIds = new ArrayList<>();
        newExpiries.forEach((id, expiry) -> {
            expiryIds.add(id);
            records.add(new DelegationTokenExpiry(id, expiry));
        });
        for (String id : removed) {
            records.add(new RemoveDelegationToken(id));
        }
        return write(records).thenApply(flags -> {
            Set<String> missed = new HashSet<>();
            for (int i = 0; i < flags.size(); i++) {
                if (flags.get(i)) {
                    continue;
                }
                int expiry = i - created.size(); // the records are the creations, the expiries, the removals
                if (expiry < 0 || expiry >= expiryIds.size()) {
                    throw new ClusterAdminException(Errors.INVALID_REQUEST, "The cluster's metadata refused a"
                            + " delegation token change as malformed.");
                }
                missed.add(expiryIds.get(expiry));
            }
            return Set.copyOf(missed);
        });
    }

    @Override
    public CompletableFuture<Void> changeQuotas(List<ClientQuotaStore.Change> changes) {
        List<MetadataRecord> records = new ArrayList<>();
        for (ClientQuotaStore.Change c : changes) {
            records.add(quota(c.entity(), c.key(), c.value()));
        }
        return write(records).thenApply(flags -> null);
    }

    /**
     * Turns group {@code group}'s settings, as this node's image holds them, into {@code settings}:
     * a {@code GroupConfig} record for each key that is new or changes, one with a null value for
     * each key that goes, all in one log entry. Nothing to change completes at once (once this
     * node's store holds what the image has). The keys and values were checked by the caller; a
     * record the image refuses fails the change with INVALID_REQUEST.
     */
    @Override
    public CompletableFuture<Void> changeGroupConfigs(String group, Map<String, String> settings) {
        List<MetadataRecord> records = member.read(image -> groupConfigChanges(group,
                image.groupConfigs().getOrDefault(group, Collections.emptySortedMap()), settings));
        if (records.isEmpty()) {
            refresh();
            return CompletableFuture.completedFuture(null);
        }
        return write(records).thenApply(flags -> {
            if (flags.contains(false)) {
                throw new ClusterAdminException(Errors.INVALID_REQUEST, "The cluster's metadata refused a change"
                        + " of the settings of group " + group + " as malformed.");
            }
            return null;
        });
    }

    /** The records that turn {@code current} into {@code wanted}, key by key in order. */
    static List<MetadataRecord> groupConfigChanges(String group, Map<String, String> current,
            Map<String, String> wanted) {
        TreeMap<String, String> changes = new TreeMap<>();
        wanted.forEach((key, value) -> {
            if (!Objects.equals(value, current.get(key))) {
                changes.put(key, value);
            }
        });
        current.keySet().forEach(key -> {
            if (!wanted.containsKey(key)) {
                changes.put(key, null);
            }
        });
        List<MetadataRecord> out = new ArrayList<>();
        changes.forEach((key, value) -> out.add(new GroupConfig(group, key, value)));
        return out;
    }

    /**
     * Writes {@code records} in entries of at most {@value #ENTRY_RECORDS} records and about
     * {@value #ENTRY_BYTES} bytes, one after the other (a DeleteAcls matching every entry of a big
     * cluster stays within what one log entry should carry); completes with each record's applied
     * flag once this node's stores hold the result. A refusal or a controller out of reach fails
     * with the Kafka error; the entries written before it stay. A record the format cannot hold
     * (a string longer than 32767 bytes) fails it with INVALID_REQUEST before anything is written.
     */
    CompletableFuture<List<Boolean>> write(List<MetadataRecord> records) {
        List<List<MetadataRecord>> entries = new ArrayList<>();
        List<MetadataRecord> entry = new ArrayList<>();
        int bytes = 0;
        for (MetadataRecord r : records) {
            int size;
            try {
                size = MetadataCodec.encodeBatch(List.of(r)).length;
            } catch (IllegalArgumentException e) {
                return CompletableFuture.failedFuture(new ClusterAdminException(Errors.INVALID_REQUEST,
                        e.getMessage()));
            }
            if (!entry.isEmpty() && (entry.size() == ENTRY_RECORDS || bytes + size > ENTRY_BYTES)) {
                entries.add(entry);
                entry = new ArrayList<>();
                bytes = 0;
            }
            entry.add(r);
            bytes += size;
        }
        if (!entry.isEmpty()) {
            entries.add(entry);
        }
        CompletableFuture<List<Boolean>> all = CompletableFuture.completedFuture(List.of());
        for (List<MetadataRecord> e : entries) {
            all = all.thenCompose(before -> member.writeSecurity(e).thenApply(flags -> {
                List<Boolean> joined = new ArrayList<>(before);
                joined.addAll(flags);
                return joined;
            }));
        }
        return all.handle((flags, e) -> {
            refresh();
            if (e != null) {
                throw ClusterBroker.translate(e);
            }
            return flags;
        });
    }

    /**
     * Once this node is registered (its image has caught up with the log): writes the bootstrap
     * users the cluster does not have, and the settings {@code legacy} that a node of an earlier
     * version kept in its own files; completes when they are applied here (then {@code legacy}'s
     * files are renamed out of the way). Until then the bootstrap users log in on this node alone.
     */
    CompletableFuture<Void> writeStartupSettings(LegacySecurityFiles legacy) {
        List<MetadataRecord> records = member.read(image -> {
            Set<String> users = new HashSet<>();
            image.scramCredentials().forEach(c -> users.add(credentialKey(c.user(), c.mechanism())));
            Set<String> quotaKeys = new HashSet<>();
            image.clientQuotas().forEach(q -> quotaKeys.add(q.entity() + "\u0000" + q.key()));
            List<MetadataRecord> out = new ArrayList<>();
            List<Stored> credentials = new ArrayList<>(bootstrapUsers);
            credentials.addAll(legacy.credentials());
            for (Stored c : credentials) {
                if (users.add(credentialKey(c.user(), c.mechanism().type()))) {
                    out.add(credential(c));
                }
            }
            legacy.acls().forEach(a -> out.add(entry(a)));
            legacy.quotas().forEach((entity, settings) -> settings.forEach((key, value) -> {
                ClientQuota q = quota(entity, key, value);
                if (quotaKeys.add(q.entity() + "\u0000" + q.key())) {
                    out.add(q);
                }
            }));
            return out;
        });
        return write(records).thenRun(() -> {
            legacy.markWritten();
            bootstrapWritten();
        });
    }

    /**
     * Once this node is registered, writes the start-up settings ({@link
     * #writeStartupSettings}); a failed attempt is retried after 1 s, doubling up to 30 s, until
     * they are in or the node stops.
     */
    void writeOnceRegistered(LegacySecurityFiles legacy) {
        member.unfenced().thenRun(() -> attempt(legacy, 1000));
    }

    private void attempt(LegacySecurityFiles legacy, long delayMs) {
        if (closed) {
            return;
        }
        writeStartupSettings(legacy).whenComplete((v, e) -> {
            if (e != null && !closed) {
                LOG.warn("Cluster mode: could not write the bootstrap SCRAM users and the node's own security settings"
                        + " to the cluster's metadata ({}); trying again in {} ms", e.getMessage(), delayMs);
                CompletableFuture.delayedExecutor(delayMs, TimeUnit.MILLISECONDS)
                        .execute(() -> attempt(legacy, Math.min(delayMs * 2, 30_000)));
            }
        });
    }

    /** Stops retrying the start-up settings (the node stops). */
    void close() {
        closed = true;
    }

    /** The bootstrap users have been written to the log (or were there): from now on only the log's count. */
    private synchronized void bootstrapWritten() {
        bootstrapWritten = true;
        seenImage = null;
        refreshLocked();
    }

    /** Gives this node's stores the image's state, when it changed since the last time. */
    synchronized void refresh() {
        refreshLocked();
    }

    private void refreshLocked() {
        Snapshot s = member.read(image -> image == seenImage && image.securityChanges() == seenChanges ? null
                : new Snapshot(image, image.securityChanges(), image.acls(), image.scramCredentials(),
                        image.clientQuotas(), image.delegationTokens(), new TreeMap<>(image.groupConfigs())));
        if (s == null) {
            return;
        }
        seenImage = s.image();
        seenChanges = s.changes();
        List<Acl> acls = new ArrayList<>();
        for (AccessControlEntry e : s.acls()) {
            acls.add(new Acl(e.resourceType(), e.resourceName(), e.patternType(), e.principal(), e.host(),
                    e.operation(), e.permission()));
        }
        authorizer.replaceAll(acls);
        Map<String, Stored> users = new LinkedHashMap<>();
        for (UserScramCredential c : s.credentials()) {
            ScramMechanism m = ScramMechanism.ofType(c.mechanism());
            if (m != null) {
                users.put(credentialKey(c.user(), m.type()), new Stored(c.user(), m, c.iterations(), c.salt(),
                        c.storedKey(), c.serverKey()));
            }
        }
        if (!bootstrapWritten) {
            for (Stored b : bootstrapUsers) {
                users.putIfAbsent(credentialKey(b.user(), b.mechanism().type()), b);
            }
        }
        scram.replaceAll(List.copyOf(users.values()));
        Map<QuotaEntity, Map<QuotaKey, Double>> settings = new LinkedHashMap<>();
        for (ClientQuota q : s.quotas()) {
            QuotaKey key = QuotaKey.of(q.key());
            QuotaEntity entity = entity(q.entity());
            if (key != null && entity != null && q.value() != null) {
                settings.computeIfAbsent(entity, k -> new TreeMap<>()).put(key, q.value());
            }
        }
        quotas.replaceAll(settings);
        List<DelegationToken> held = new ArrayList<>();
        for (MetadataRecord.DelegationToken t : s.tokens()) {
            held.add(new DelegationToken(t.tokenId(), t.owner(), t.requester(), t.renewers(), t.issueTimestampMs(),
                    t.maxTimestampMs(), t.expiryTimestampMs()));
        }
        tokens.replaceAll(held);
        groupConfigs.replaceAll(s.groupConfigs());
    }

    /** What of the image the stores are given, copied under the image's lock. */
    private record Snapshot(MetadataImage image, long changes, List<AccessControlEntry> acls,
            List<UserScramCredential> credentials, List<ClientQuota> quotas,
            List<MetadataRecord.DelegationToken> tokens, Map<String, Map<String, String>> groupConfigs) {
        Snapshot {
            acls = List.copyOf(acls);
            credentials = List.copyOf(credentials);
            quotas = List.copyOf(quotas);
            tokens = List.copyOf(tokens);
        }
    }

    /** One user's credential for one mechanism, as a key. */
    private static String credentialKey(String user, byte mechanism) {
        return user + '\u0000' + mechanism;
    }

    static AccessControlEntry entry(Acl a) {
        return new AccessControlEntry(a.resourceType(), a.resourceName(), a.patternType(), a.principal(), a.host(),
                a.operation(), a.permission());
    }

    static UserScramCredential credential(Stored s) {
        return new UserScramCredential(s.user(), s.mechanism().type(), s.iterations(), s.salt(), s.storedKey(),
                s.serverKey());
    }

    static MetadataRecord.DelegationToken token(DelegationToken t) {
        return new MetadataRecord.DelegationToken(t.tokenId(), t.owner(), t.requester(), t.renewers(),
                t.issueTimestampMs(), t.maxTimestampMs(), t.expiryTimestampMs());
    }

    static ClientQuota quota(QuotaEntity entity, QuotaKey key, Double value) {
        return new ClientQuota(new TreeMap<>(entity.parts()), key.key(), value);
    }

    /** The entity of a quota record's parts, or null for a part of a type Brook does not know. */
    static QuotaEntity entity(Map<String, String> parts) {
        QuotaEntity.Name user = null;
        QuotaEntity.Name client = null;
        QuotaEntity.Name ip = null;
        for (Map.Entry<String, String> p : parts.entrySet()) {
            QuotaEntity.Name name = p.getValue() == null ? QuotaEntity.Name.DEFAULT : QuotaEntity.Name.of(p.getValue());
            switch (p.getKey()) {
                case QuotaEntity.USER -> user = name;
                case QuotaEntity.CLIENT_ID -> client = name;
                case QuotaEntity.IP -> ip = name;
                default -> {
                    return null; // (the image keeps the three types only)
                }
            }
        }
        return new QuotaEntity(user, client, ip);
    }
}
