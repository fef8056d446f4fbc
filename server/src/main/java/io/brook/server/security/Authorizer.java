package io.brook.server.security;

import io.brook.storage.file.DurableFiles;
import io.brook.storage.file.LineFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * ACL authorization with the semantics of Kafka's StandardAuthorizer, enabled by
 * {@code authorizer.class.name} (Kafka's own value,
 * {@code org.apache.kafka.metadata.authorizer.StandardAuthorizer}, is the one accepted):
 *
 * <ul>
 * <li>a principal of {@code super.users} ({@code User:a;User:b}) may do everything;
 * <li>the entries that apply to a request are those whose pattern covers the resource (LITERAL
 *     name, LITERAL {@code *}, PREFIXED prefix), whose principal is the client's or
 *     {@code User:*}, and whose host is the client's address or {@code *};
 * <li>a DENY for the operation (or ALL) wins over any ALLOW;
 * <li>an ALLOW for the operation, or ALL, allows it; so does an ALLOW of READ, WRITE, DELETE or
 *     ALTER for DESCRIBE, and of ALTER_CONFIGS for DESCRIBE_CONFIGS (implied operations);
 * <li>with no entry for the resource at all, {@code allow.everyone.if.no.acl.found} decides
 *     (default false).
 * </ul>
 *
 * Without {@code authorizer.class.name} the broker authorizes everything and the ACL APIs
 * answer SECURITY_DISABLED, as Kafka does.
 *
 * <p>On a single node the entries are stored in the metadata directory (file {@value #FILE_NAME}),
 * written with {@link DurableFiles#writeAtomically} before a change is acknowledged. In cluster
 * mode they are records of the cluster's metadata log instead ({@link SecurityMetadataLog}): a
 * change goes to the controller, and every node is given the entries its image holds through
 * {@link #replaceAll}. Reads see an immutable snapshot, an {@link AclIndex}, so that a check reads
 * only the entries that can apply to it; they take no lock, except that the first check of a new
 * snapshot builds its look-up tables while checks of the same snapshot on other threads wait for
 * them. Changes are serialized and each one publishes a new snapshot. One CreateAcls or DeleteAcls
 * request changes at most {@value #MAX_CHANGES_PER_REQUEST} entries; a larger one is refused whole
 * ({@link AclChangeTooLarge}), as Kafka's controller refuses it.
 */
public final class Authorizer {

    public static final String KAFKA_STANDARD_AUTHORIZER = "org.apache.kafka.metadata.authorizer.StandardAuthorizer";
    /**
     * The most entries one CreateAcls request may create (distinct entries) and one DeleteAcls
     * request may remove (distinct entries its filters match): Kafka's controller refuses an
     * operation of more than 10,000 records whole.
     */
    public static final int MAX_CHANGES_PER_REQUEST = 10_000;

    /** The message of CreateAcls' and DeleteAcls' SECURITY_DISABLED, Kafka's words (clients show it). */
    public static final String DISABLED_MESSAGE = "No Authorizer is configured.";

    /** DescribeAcls' words for SECURITY_DISABLED, which are Kafka's other ones. */
    public static final String DESCRIBE_DISABLED_MESSAGE = "No Authorizer is configured on the broker";
    static final String FILE_NAME = "acls";

    private final boolean enabled;
    private final Set<String> superUsers;
    private final boolean allowIfNoAcl;
    private final Path file;
    /** The entries; replaced whole by a change, never modified. */
    private volatile AclIndex acls;
    /** In cluster mode, the metadata log that keeps the entries (once the node joined it); null on a single node. */
    private volatile CompletableFuture<SecurityMetadataLog> log;

    private Authorizer(boolean enabled, Set<String> superUsers, boolean allowIfNoAcl, Path file, List<Acl> acls) {
        this.enabled = enabled;
        this.superUsers = superUsers;
        this.allowIfNoAcl = allowIfNoAcl;
        this.file = file;
        this.acls = new AclIndex(acls);
    }

    /** The authorizer {@code settings} ask for; ACLs kept in {@code metaDir} (null: memory only). */
    static Authorizer create(Map<String, String> settings, Path metaDir) throws IOException {
        String className = settings.getOrDefault("authorizer.class.name", "").trim();
        if (className.isEmpty()) {
            return new Authorizer(false, Set.of(), true, null, List.of());
        }
        if (!className.equals(KAFKA_STANDARD_AUTHORIZER)) {
            throw new IllegalArgumentException("Invalid value '" + className + "' for configuration"
                    + " authorizer.class.name: Brook provides " + KAFKA_STANDARD_AUTHORIZER + "'s semantics only");
        }
        Set<String> supers = new LinkedHashSet<>();
        for (String s : settings.getOrDefault("super.users", "").split(";", -1)) {
            if (!s.isBlank()) {
                supers.add(s.trim());
            }
        }
        String allow = settings.getOrDefault("allow.everyone.if.no.acl.found", "false").trim();
        if (!allow.equalsIgnoreCase("true") && !allow.equalsIgnoreCase("false")) {
            throw new IllegalArgumentException("Invalid value '" + allow + "' for configuration"
                    + " allow.everyone.if.no.acl.found: must be true or false");
        }
        Path f = metaDir == null ? null : metaDir.resolve(FILE_NAME);
        return new Authorizer(true, Set.copyOf(supers), Boolean.parseBoolean(allow), f, load(f));
    }

    /** Whether ACLs are enforced (an authorizer is configured). */
    public boolean enabled() {
        return enabled;
    }

    /**
     * Whether {@code principal} connecting from {@code host} may do {@code operation} on the
     * resource {@code resourceType}/{@code name} ({@code name} not null: the callers ask for ""
     * when a request has none).
     */
    public boolean authorize(String principal, String host, byte operation, byte resourceType, String name) {
        if (!enabled || superUsers.contains(principal)) {
            return true;
        }
        AclIndex index = acls;
        boolean allowed = false;
        for (List<Acl> group : index.applying(principal, resourceType, name)) {
            for (Acl acl : group) {
                if (!(acl.principal().equals(principal) || acl.principal().equals(Acl.WILDCARD_PRINCIPAL))
                        || !(acl.host().equals(host) || acl.host().equals(Acl.WILDCARD))) {
                    continue;
                }
                if (acl.permission() == Acl.DENY) {
                    if (acl.operation() == operation || acl.operation() == Acl.ALL) {
                        return false;
                    }
                } else if (acl.operation() == operation || acl.operation() == Acl.ALL
                        || implies(acl.operation(), operation)) {
                    allowed = true;
                }
            }
        }
        return allowed || (allowIfNoAcl && !index.covered(resourceType, name));
    }

    /**
     * Whether {@code principal} may do {@code operation} on some resource of {@code resourceType}
     * (Kafka's {@code authorizeByResourceType}, which lets InitProducerId without a transactional
     * id through for WRITE on any topic): a super user may; otherwise an ALLOW for the operation
     * (or ALL, no implied operations) on a pattern that a DENY does not cover whole (a DENY on
     * {@code *} covers every pattern, a LITERAL DENY its own name, a PREFIXED DENY every pattern
     * starting with it). As in Kafka, a resource called "hardcode" is asked first, so that a
     * super user or {@code allow.everyone.if.no.acl.found} answer the same way as for a name.
     */
    public boolean authorizeByResourceType(String principal, String host, byte operation, byte resourceType) {
        if (authorize(principal, host, operation, resourceType, "hardcode")) {
            return true;
        }
        AclIndex index = acls;
        List<Acl> candidates = new ArrayList<>(index.ofPrincipal(resourceType, principal));
        if (!Acl.WILDCARD_PRINCIPAL.equals(principal)) {
            candidates.addAll(index.ofPrincipal(resourceType, Acl.WILDCARD_PRINCIPAL));
        }
        Set<String> deniedLiterals = new HashSet<>();
        Set<String> deniedPrefixes = new HashSet<>();
        List<Acl> allows = new ArrayList<>();
        boolean allowsAll = false;
        for (Acl acl : candidates) {
            if (!(acl.host().equals(host) || acl.host().equals(Acl.WILDCARD))
                    || !(acl.operation() == operation || acl.operation() == Acl.ALL)) {
                continue;
            }
            if (acl.permission() == Acl.DENY) {
                if (acl.patternType() == Acl.LITERAL && acl.resourceName().equals(Acl.WILDCARD)) {
                    return false;
                }
                (acl.patternType() == Acl.PREFIXED ? deniedPrefixes : deniedLiterals).add(acl.resourceName());
            } else if (acl.permission() == Acl.ALLOW) {
                allowsAll |= acl.patternType() == Acl.LITERAL && acl.resourceName().equals(Acl.WILDCARD);
                allows.add(acl);
            }
        }
        if (allowsAll) {
            return true;
        }
        for (Acl allow : allows) {
            String name = allow.resourceName();
            if (allow.patternType() == Acl.LITERAL && deniedLiterals.contains(name)) {
                continue;
            }
            boolean covered = false;
            for (int i = 1; i <= name.length() && !covered; i++) {
                covered = deniedPrefixes.contains(name.substring(0, i));
            }
            if (!covered) {
                return true;
            }
        }
        return false;
    }

    /**
     * Of the operations in {@code candidates} (bit {@code 1 << code}), those {@code principal}
     * may do on the resource: KIP-430's authorized operations. All of them when disabled.
     */
    public int authorizedOperations(String principal, String host, byte resourceType, String name, int candidates) {
        if (!enabled) {
            return candidates;
        }
        int out = 0;
        for (byte op = Acl.READ; op <= Acl.TWO_PHASE_COMMIT; op++) {
            if ((candidates & (1 << op)) != 0 && authorize(principal, host, op, resourceType, name)) {
                out |= 1 << op;
            }
        }
        return out;
    }

    private static boolean implies(byte granted, byte wanted) {
        if (wanted == Acl.DESCRIBE) {
            return granted == Acl.READ || granted == Acl.WRITE || granted == Acl.DELETE || granted == Acl.ALTER;
        }
        return wanted == Acl.DESCRIBE_CONFIGS && granted == Acl.ALTER_CONFIGS;
    }

    /** Every entry the filter matches, in stored order. */
    public List<Acl> describe(AclFilter filter) {
        return matching(acls, filter);
    }

    /**
     * The entries of {@code index} the filter matches: a filter naming a resource type and a
     * principal reads that principal's entries of the type only, any other one every entry.
     */
    private static List<Acl> matching(AclIndex index, AclFilter filter) {
        List<Acl> candidates = filter.resourceType() != Acl.ANY && filter.principal() != null
                ? index.ofPrincipal(filter.resourceType(), filter.principal()) : index.all();
        List<Acl> out = new ArrayList<>();
        for (Acl acl : candidates) {
            if (filter.matches(acl)) {
                out.add(acl);
            }
        }
        return out;
    }

    /**
     * Adds the entries (those present already stay once), durably; fails with {@link
     * AclChangeTooLarge}, adding none, when there are more than {@link #MAX_CHANGES_PER_REQUEST}
     * distinct ones.
     */
    public CompletableFuture<Void> create(List<Acl> added) {
        int distinct = new HashSet<>(added).size();
        if (distinct > MAX_CHANGES_PER_REQUEST) {
            return CompletableFuture.failedFuture(new AclChangeTooLarge(distinct + " ACLs to create"));
        }
        CompletableFuture<SecurityMetadataLog> l = log;
        if (l != null) {
            return l.thenCompose(m -> m.addAcls(added));
        }
        try {
            createHere(added);
            return CompletableFuture.completedFuture(null);
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private synchronized void createHere(List<Acl> added) throws IOException {
        LinkedHashSet<Acl> next = new LinkedHashSet<>(acls.all());
        next.addAll(added);
        store(List.copyOf(next));
    }

    /**
     * Removes every entry one of the filters matches, durably; completes with, per filter, what
     * it removed (an entry two filters match is in both lists). When the filters match more than
     * {@link #MAX_CHANGES_PER_REQUEST} entries in all, fails with {@link AclChangeTooLarge} and
     * removes none. In cluster mode the filters match
     * the entries this node has once it has caught up with the controller ({@link
     * SecurityMetadataLog#catchUp}), so every entry whose creation was answered before, through
     * any node, is matched; an entry another change removed meanwhile is not reported.
     */
    public CompletableFuture<List<List<Acl>>> delete(List<AclFilter> filters) {
        CompletableFuture<SecurityMetadataLog> l = log;
        if (l == null) {
            try {
                return CompletableFuture.completedFuture(deleteHere(filters));
            } catch (IOException | AclChangeTooLarge e) {
                return CompletableFuture.failedFuture(e);
            }
        }
        return l.thenCompose(m -> m.catchUp().thenCompose(caughtUp -> deleteThrough(m, filters)));
    }

    /** Matches {@code filters} on this node's entries and removes those through {@code m}. */
    private CompletableFuture<List<List<Acl>>> deleteThrough(SecurityMetadataLog m, List<AclFilter> filters) {
        AclIndex current = acls;
        List<List<Acl>> matched = new ArrayList<>();
        LinkedHashSet<Acl> all = new LinkedHashSet<>();
        for (AclFilter f : filters) {
            List<Acl> mine = matching(current, f);
            matched.add(mine);
            all.addAll(mine);
        }
        if (all.isEmpty()) {
            return CompletableFuture.completedFuture(matched);
        }
        if (all.size() > MAX_CHANGES_PER_REQUEST) {
            return CompletableFuture.failedFuture(new AclChangeTooLarge("the filters match " + all.size() + " ACLs"));
        }
        List<Acl> removing = List.copyOf(all);
        return m.removeAcls(removing).thenApply(flags -> {
            Set<Acl> gone = new HashSet<>();
            for (int i = 0; i < removing.size(); i++) {
                if (flags.get(i)) {
                    gone.add(removing.get(i));
                }
            }
            List<List<Acl>> out = new ArrayList<>();
            for (List<Acl> mine : matched) {
                out.add(mine.stream().filter(gone::contains).toList());
            }
            return out;
        });
    }

    private synchronized List<List<Acl>> deleteHere(List<AclFilter> filters) throws IOException {
        AclIndex current = acls;
        List<List<Acl>> removed = new ArrayList<>();
        Set<Acl> gone = new HashSet<>();
        for (AclFilter f : filters) {
            List<Acl> mine = matching(current, f);
            gone.addAll(mine);
            removed.add(mine);
        }
        if (gone.size() > MAX_CHANGES_PER_REQUEST) {
            throw new AclChangeTooLarge("the filters match " + gone.size() + " ACLs");
        }
        if (!gone.isEmpty()) {
            List<Acl> next = new ArrayList<>();
            for (Acl a : current.all()) {
                if (!gone.contains(a)) {
                    next.add(a);
                }
            }
            store(List.copyOf(next));
        }
        return removed;
    }

    /**
     * Cluster mode: from now on the entries are kept by {@code log} (changes wait for it to
     * complete), and this node's entries are the ones {@link #replaceAll} gives.
     */
    void keptIn(CompletableFuture<SecurityMetadataLog> log) {
        this.log = log;
    }

    /** Cluster mode: the entries this node's metadata image holds now. */
    public void replaceAll(List<Acl> entries) {
        acls = new AclIndex(entries);
    }

    /** The entries stored in {@code metaDir} by a single node (none when there are none). */
    static List<Acl> storedIn(Path metaDir) throws IOException {
        return load(metaDir.resolve(FILE_NAME));
    }

    private void store(List<Acl> next) throws IOException {
        if (file != null) {
            Base64.Encoder b64 = Base64.getEncoder();
            StringBuilder out = new StringBuilder("# ACLs: type pattern operation permission name principal host (base64)\n");
            for (Acl a : next) {
                out.append(a.resourceType()).append(' ').append(a.patternType()).append(' ').append(a.operation())
                        .append(' ').append(a.permission()).append(' ')
                        .append(b64.encodeToString(a.resourceName().getBytes(StandardCharsets.UTF_8))).append(' ')
                        .append(b64.encodeToString(a.principal().getBytes(StandardCharsets.UTF_8))).append(' ')
                        .append(b64.encodeToString(a.host().getBytes(StandardCharsets.UTF_8))).append('\n');
            }
            DurableFiles.writeAtomically(file, out.toString().getBytes(StandardCharsets.UTF_8));
        }
        acls = new AclIndex(next);
    }

    private static List<Acl> load(Path file) throws IOException {
        if (file == null) {
            return List.of();
        }
        Base64.Decoder b64 = Base64.getDecoder();
        List<Acl> out = new ArrayList<>();
        LineFiles.read(file, f -> {
            try {
                out.add(new Acl(Byte.parseByte(f[0]), new String(b64.decode(f[4]), StandardCharsets.UTF_8),
                        Byte.parseByte(f[1]), new String(b64.decode(f[5]), StandardCharsets.UTF_8),
                        new String(b64.decode(f[6]), StandardCharsets.UTF_8), Byte.parseByte(f[2]), Byte.parseByte(f[3])));
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("not an ACL", e);
            }
        });
        return List.copyOf(out);
    }
}
