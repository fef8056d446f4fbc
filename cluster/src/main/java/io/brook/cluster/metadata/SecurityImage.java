package io.brook.cluster.metadata;

import io.brook.cluster.metadata.MetadataRecord.AccessControlEntry;
import io.brook.cluster.metadata.MetadataRecord.ClientQuota;
import io.brook.cluster.metadata.MetadataRecord.DelegationToken;
import io.brook.cluster.metadata.MetadataRecord.DelegationTokenExpiry;
import io.brook.cluster.metadata.MetadataRecord.GroupConfig;
import io.brook.cluster.metadata.MetadataRecord.RemoveAccessControlEntry;
import io.brook.cluster.metadata.MetadataRecord.RemoveDelegationToken;
import io.brook.cluster.metadata.MetadataRecord.RemoveUserScramCredential;
import io.brook.cluster.metadata.MetadataRecord.UserScramCredential;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The security part of the {@link MetadataImage}: ACL entries, SCRAM credentials, client quotas
 * and delegation tokens (records 14 to 21), and the groups' own settings (record 22), which travel
 * with them. Sorted throughout, so that iteration, snapshots and
 * {@code equals} do not depend on hash order; every record is checked whole before anything
 * changes.
 *
 * <p>Not thread-safe: the image's lock covers it.
 */
final class SecurityImage {

    /** Kafka's ResourceType codes a binding may name: TOPIC 2 to USER 7 (not UNKNOWN 0, ANY 1). */
    private static final int MIN_RESOURCE_TYPE = 2;
    private static final int MAX_RESOURCE_TYPE = 7;
    /** Kafka's PatternType codes a binding may hold: LITERAL 3, PREFIXED 4 (not ANY 1, MATCH 2). */
    private static final byte LITERAL = 3;
    private static final byte PREFIXED = 4;
    /** Kafka's AclOperation codes a binding may hold: ALL 2 to TWO_PHASE_COMMIT 15. */
    private static final int MIN_OPERATION = 2;
    private static final int MAX_OPERATION = 15;
    /** Kafka's AclPermissionType codes a binding may hold. */
    private static final byte DENY = 2;
    private static final byte ALLOW = 3;
    /** The SCRAM mechanisms: 1 SCRAM-SHA-256, 2 SCRAM-SHA-512 (Kafka's ScramMechanism types). */
    private static final byte SCRAM_SHA_256 = 1;
    private static final byte SCRAM_SHA_512 = 2;
    private static final Set<String> ENTITY_TYPES = Set.of("user", "client-id", "ip");

    private static final Comparator<String> NULLS_FIRST = Comparator.nullsFirst(Comparator.naturalOrder());

    /** Every field of an entry, so that entries that differ in any field are distinct. */
    static final Comparator<AccessControlEntry> ACL_ORDER = Comparator.comparingInt(AccessControlEntry::resourceType)
            .thenComparing(AccessControlEntry::resourceName, NULLS_FIRST)
            .thenComparingInt(AccessControlEntry::patternType)
            .thenComparing(AccessControlEntry::principal, NULLS_FIRST)
            .thenComparing(AccessControlEntry::host, NULLS_FIRST)
            .thenComparingInt(AccessControlEntry::operation)
            .thenComparingInt(AccessControlEntry::permission);

    /**
     * Quota entities part by part, in entity-type order: the type, then the name (the default
     * entity, null, first); an entity that is a prefix of another comes first.
     */
    static final Comparator<SortedMap<String, String>> ENTITY_ORDER = (a, b) -> {
        Iterator<Map.Entry<String, String>> i = a.entrySet().iterator();
        Iterator<Map.Entry<String, String>> j = b.entrySet().iterator();
        while (i.hasNext() && j.hasNext()) {
            Map.Entry<String, String> x = i.next();
            Map.Entry<String, String> y = j.next();
            int c = x.getKey().compareTo(y.getKey());
            if (c == 0) {
                c = NULLS_FIRST.compare(x.getValue(), y.getValue());
            }
            if (c != 0) {
                return c;
            }
        }
        return Boolean.compare(i.hasNext(), j.hasNext());
    };

    private final TreeSet<AccessControlEntry> acls = new TreeSet<>(ACL_ORDER);
    /** user -> mechanism -> credential. */
    private final TreeMap<String, TreeMap<Byte, UserScramCredential>> credentials = new TreeMap<>();
    /** entity -> key -> value. */
    private final TreeMap<SortedMap<String, String>, TreeMap<String, Double>> quotas = new TreeMap<>(ENTITY_ORDER);
    /** token id -> token. */
    private final TreeMap<String, DelegationToken> tokens = new TreeMap<>();
    /** group -> key -> value; a group without settings is absent. */
    private final TreeMap<String, TreeMap<String, String>> groupConfigs = new TreeMap<>();
    /** Security records applied by this instance: node-local, not state. */
    private long changes;

    /** Applies a security record, or throws {@link RejectedRecordException} and changes nothing. */
    void apply(MetadataRecord record) {
        if (record instanceof AccessControlEntry r) {
            checkAcl(r);
            acls.add(r);
        } else if (record instanceof RemoveAccessControlEntry r) {
            if (!acls.remove(r.entry())) {
                throw new RejectedRecordException("no ACL entry " + r.entry());
            }
        } else if (record instanceof UserScramCredential r) {
            checkCredential(r);
            credentials.computeIfAbsent(r.user(), u -> new TreeMap<>()).put(r.mechanism(), r);
        } else if (record instanceof RemoveUserScramCredential r) {
            removeCredential(r);
        } else if (record instanceof ClientQuota r) {
            setQuota(r);
        } else if (record instanceof DelegationToken r) {
            checkToken(r);
            tokens.put(r.tokenId(), r);
        } else if (record instanceof RemoveDelegationToken r) {
            if (isEmpty(r.tokenId())) {
                throw new RejectedRecordException("delegation token removal without a token id");
            }
            tokens.remove(r.tokenId());
        } else if (record instanceof DelegationTokenExpiry r) {
            setTokenExpiry(r);
        } else if (record instanceof GroupConfig r) {
            setGroupConfig(r);
        } else {
            throw new IllegalArgumentException("not a security record: " + record);
        }
        changes++;
    }

    private static void checkAcl(AccessControlEntry r) {
        if (r.resourceType() < MIN_RESOURCE_TYPE || r.resourceType() > MAX_RESOURCE_TYPE) {
            throw new RejectedRecordException("ACL resource type " + r.resourceType() + " is not one of "
                    + MIN_RESOURCE_TYPE + " to " + MAX_RESOURCE_TYPE);
        }
        if (r.patternType() != LITERAL && r.patternType() != PREFIXED) {
            throw new RejectedRecordException("ACL pattern type " + r.patternType() + " is neither LITERAL ("
                    + LITERAL + ") nor PREFIXED (" + PREFIXED + ")");
        }
        if (r.operation() < MIN_OPERATION || r.operation() > MAX_OPERATION) {
            throw new RejectedRecordException("ACL operation " + r.operation() + " is not one of " + MIN_OPERATION
                    + " to " + MAX_OPERATION);
        }
        if (r.permission() != DENY && r.permission() != ALLOW) {
            throw new RejectedRecordException("ACL permission " + r.permission() + " is neither DENY (" + DENY
                    + ") nor ALLOW (" + ALLOW + ")");
        }
        if (isEmpty(r.resourceName()) || isEmpty(r.principal()) || isEmpty(r.host())) {
            throw new RejectedRecordException("ACL entry " + r + " has no resource name, principal or host");
        }
    }

    private static void checkCredential(UserScramCredential r) {
        if (isEmpty(r.user())) {
            throw new RejectedRecordException("SCRAM credential without a user");
        }
        checkMechanism(r.mechanism());
        if (r.iterations() <= 0) {
            throw new RejectedRecordException("SCRAM credential of '" + r.user() + "' with " + r.iterations()
                    + " iterations");
        }
        if (r.salt().length == 0 || r.storedKey().length == 0 || r.serverKey().length == 0) {
            throw new RejectedRecordException("SCRAM credential of '" + r.user() + "' with an empty salt or key");
        }
    }

    /**
     * A token needs an id; an owner, a requester and renewers that are principals ({@code
     * Type:name}: the brokers split them at the colon); an issue time that is not negative and
     * not after its maximum time; and an expiry not after its maximum. The expiry may be before
     * the issue time: a node whose clock is behind the creator's may expire the token.
     */
    private static void checkToken(DelegationToken r) {
        if (isEmpty(r.tokenId())) {
            throw new RejectedRecordException("delegation token without a token id");
        }
        if (!isPrincipal(r.owner()) || !isPrincipal(r.requester())) {
            throw new RejectedRecordException("delegation token " + r.tokenId() + " has the owner '" + r.owner()
                    + "' and the requester '" + r.requester() + "': both must be principals (Type:name)");
        }
        for (String renewer : r.renewers()) {
            if (!isPrincipal(renewer)) {
                throw new RejectedRecordException("delegation token " + r.tokenId() + " has the renewer '" + renewer
                        + "', not a principal (Type:name)");
            }
        }
        if (r.issueTimestampMs() < 0 || r.maxTimestampMs() < r.issueTimestampMs()
                || r.expiryTimestampMs() > r.maxTimestampMs()) {
            throw new RejectedRecordException("delegation token " + r.tokenId() + " issued at " + r.issueTimestampMs()
                    + ", expiring at " + r.expiryTimestampMs() + ", at most at " + r.maxTimestampMs()
                    + ": the issue time must be neither negative nor after the maximum, and the expiry not after it");
        }
    }

    /**
     * Moves the expiry of a token the image holds. Rejected when it holds none of that id (it was
     * removed, perhaps by a change through another node a moment before: the expiry must not bring
     * it back) and when the new expiry is after the token's maximum time.
     */
    private void setTokenExpiry(DelegationTokenExpiry r) {
        DelegationToken t = r.tokenId() == null ? null : tokens.get(r.tokenId());
        if (t == null) {
            throw new RejectedRecordException("no delegation token " + r.tokenId() + " to set the expiry of");
        }
        if (r.expiryTimestampMs() > t.maxTimestampMs()) {
            throw new RejectedRecordException("delegation token " + r.tokenId() + " cannot expire at "
                    + r.expiryTimestampMs() + ", after its maximum time " + t.maxTimestampMs());
        }
        tokens.put(t.tokenId(), new DelegationToken(t.tokenId(), t.owner(), t.requester(), t.renewers(),
                t.issueTimestampMs(), t.maxTimestampMs(), r.expiryTimestampMs()));
    }

    /** Whether {@code s} is written as a principal: a type, a colon, a name (the colon is what is checked). */
    private static boolean isPrincipal(String s) {
        return s != null && s.indexOf(':') >= 0;
    }

    private static void checkMechanism(byte mechanism) {
        if (mechanism != SCRAM_SHA_256 && mechanism != SCRAM_SHA_512) {
            throw new RejectedRecordException("SCRAM mechanism " + mechanism + " is neither SCRAM-SHA-256 ("
                    + SCRAM_SHA_256 + ") nor SCRAM-SHA-512 (" + SCRAM_SHA_512 + ")");
        }
    }

    private void removeCredential(RemoveUserScramCredential r) {
        TreeMap<Byte, UserScramCredential> byMechanism = r.user() == null ? null : credentials.get(r.user());
        if (byMechanism == null || byMechanism.remove(r.mechanism()) == null) {
            throw new RejectedRecordException("no SCRAM credential of mechanism " + r.mechanism() + " for user '"
                    + r.user() + "'");
        }
        if (byMechanism.isEmpty()) {
            credentials.remove(r.user());
        }
    }

    private void setQuota(ClientQuota r) {
        SortedMap<String, String> entity = r.entity();
        if (entity.isEmpty()) {
            throw new RejectedRecordException("client quota without an entity");
        }
        for (Map.Entry<String, String> part : entity.entrySet()) {
            if (!ENTITY_TYPES.contains(part.getKey())) {
                throw new RejectedRecordException("client quota entity type '" + part.getKey() + "' is not one of "
                        + new TreeSet<>(ENTITY_TYPES));
            }
            if (part.getValue() != null && part.getValue().isEmpty()) {
                throw new RejectedRecordException("client quota entity " + entity + " has an empty name");
            }
        }
        if (entity.containsKey("ip") && entity.size() > 1) {
            throw new RejectedRecordException("client quota entity " + entity + " combines ip with another type");
        }
        if (isEmpty(r.key())) {
            throw new RejectedRecordException("client quota of " + entity + " without a key");
        }
        Double value = r.value();
        if (value != null && (!Double.isFinite(value) || value < 0)) {
            throw new RejectedRecordException("client quota " + r.key() + " of " + entity + " has the value " + value
                    + ": it must be finite and not negative");
        }
        if (value == null) {
            TreeMap<String, Double> values = quotas.get(entity);
            if (values != null) {
                values.remove(r.key());
                if (values.isEmpty()) {
                    quotas.remove(entity);
                }
            }
        } else {
            quotas.computeIfAbsent(entity, e -> new TreeMap<>()).put(r.key(), value);
        }
    }

    /**
     * Sets or removes one setting of a group. A group and a key are required; the value is kept
     * as written. Removing a key the group does not have applies and changes nothing.
     */
    private void setGroupConfig(GroupConfig r) {
        if (isEmpty(r.group())) {
            throw new RejectedRecordException("group config without a group");
        }
        if (isEmpty(r.key())) {
            throw new RejectedRecordException("group config of group '" + r.group() + "' without a key");
        }
        if (r.value() == null) {
            TreeMap<String, String> settings = groupConfigs.get(r.group());
            if (settings != null) {
                settings.remove(r.key());
                if (settings.isEmpty()) {
                    groupConfigs.remove(r.group());
                }
            }
        } else {
            groupConfigs.computeIfAbsent(r.group(), g -> new TreeMap<>()).put(r.key(), r.value());
        }
    }

    private static boolean isEmpty(String s) {
        return s == null || s.isEmpty();
    }

    List<AccessControlEntry> acls() {
        return List.copyOf(acls);
    }

    List<UserScramCredential> scramCredentials() {
        List<UserScramCredential> out = new ArrayList<>();
        credentials.values().forEach(byMechanism -> out.addAll(byMechanism.values()));
        return List.copyOf(out);
    }

    List<ClientQuota> clientQuotas() {
        List<ClientQuota> out = new ArrayList<>();
        quotas.forEach((entity, values) -> values.forEach((key, value) -> out.add(new ClientQuota(entity, key, value))));
        return List.copyOf(out);
    }

    List<DelegationToken> delegationTokens() {
        return List.copyOf(tokens.values());
    }

    /** A copy, group by group and key by key, sorted and read-only. */
    SortedMap<String, SortedMap<String, String>> groupConfigs() {
        TreeMap<String, SortedMap<String, String>> out = new TreeMap<>();
        groupConfigs.forEach((group, settings) -> out.put(group,
                Collections.unmodifiableSortedMap(new TreeMap<>(settings))));
        return Collections.unmodifiableSortedMap(out);
    }

    long changes() {
        return changes;
    }

    /** The records that rebuild this state: ACLs, credentials, quotas, tokens, group settings, each in order. */
    void addRecords(List<MetadataRecord> out) {
        out.addAll(acls);
        out.addAll(scramCredentials());
        out.addAll(clientQuotas());
        out.addAll(tokens.values());
        groupConfigs.forEach((group, settings) -> settings.forEach((key, value) ->
                out.add(new GroupConfig(group, key, value))));
    }

    /**
     * Equal when they hold the same entries, credentials, quotas, tokens and group settings;
     * {@link #changes()} is not state.
     */
    @Override
    public boolean equals(Object o) {
        return o instanceof SecurityImage s && acls.equals(s.acls) && credentials.equals(s.credentials)
                && quotas.equals(s.quotas) && tokens.equals(s.tokens) && groupConfigs.equals(s.groupConfigs);
    }

    @Override
    public int hashCode() {
        return Objects.hash(acls, credentials, quotas, tokens, groupConfigs);
    }
}
