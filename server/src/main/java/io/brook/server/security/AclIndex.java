package io.brook.server.security;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The ACL entries of one moment, arranged so that a check reads only the entries that can apply
 * to it. Per resource type: LITERAL entries by name ({@code *} is one more name), PREFIXED
 * entries by prefix, looked up for each distinct prefix length among the type's prefixes; a
 * pattern with many entries also keeps them by principal. A check thus makes two hash look-ups,
 * plus one per distinct prefix length up to the name's, and reads the entries of the patterns
 * found (only those of its principal and {@code User:*}, when a pattern has many), however many
 * entries other resources have. The same tables tell whether any entry at all covers a resource
 * ({@code allow.everyone.if.no.acl.found}); per type and principal the entries are also listed,
 * for the checks by resource type and the filters that name a principal. The lists handed out
 * are the index's own: callers only read them.
 *
 * <p>Immutable: a change of the entries makes a new index. The look-up tables are built once, by
 * the first call that needs them (calls on other threads meanwhile wait for them), and are never
 * modified after; so a node that is given new entries after every metadata change it applies
 * builds tables only for the snapshots some check reads.
 */
final class AclIndex {

    /** A pattern with more entries than this keeps them by principal too. */
    private static final int BY_PRINCIPAL_ABOVE = 8;
    private static final int[] NO_LENGTHS = {};

    private final List<Acl> all;
    /** Built by the first look-up; never modified after. */
    private volatile Map<Byte, TypeAcls> types;

    AclIndex(List<Acl> all) {
        this.all = List.copyOf(all);
    }

    /** Every entry, in the order they were stored. */
    List<Acl> all() {
        return all;
    }

    /**
     * Groups of entries that hold every entry whose pattern covers the resource
     * {@code type}/{@code name} (LITERAL that name or {@code *}, PREFIXED a prefix of it) and
     * whose principal is {@code principal} or {@code User:*}; each such entry is in one group only.
     * The groups may hold other principals' entries of the same patterns too: the caller checks
     * principal and host. {@code name} is not null.
     */
    List<List<Acl>> applying(String principal, byte type, String name) {
        TypeAcls t = tables().get(type);
        if (t == null) {
            return List.of();
        }
        List<List<Acl>> out = new ArrayList<>(4);
        Resource r = t.literal.get(name);
        if (r != null) {
            r.applying(principal, out);
        }
        if (!Acl.WILDCARD.equals(name)) {
            r = t.literal.get(Acl.WILDCARD);
            if (r != null) {
                r.applying(principal, out);
            }
        }
        for (int length : t.prefixLengths) {
            if (length > name.length()) {
                break;
            }
            r = t.prefixed.get(name.substring(0, length));
            if (r != null) {
                r.applying(principal, out);
            }
        }
        return out;
    }

    /**
     * Whether any entry, of any principal and host, covers the resource {@code type}/{@code name}
     * ({@code name} not null).
     */
    boolean covered(byte type, String name) {
        TypeAcls t = tables().get(type);
        if (t == null) {
            return false;
        }
        if (t.literal.containsKey(name) || t.literal.containsKey(Acl.WILDCARD)) {
            return true;
        }
        for (int length : t.prefixLengths) {
            if (length > name.length()) {
                break;
            }
            if (t.prefixed.containsKey(name.substring(0, length))) {
                return true;
            }
        }
        return false;
    }

    /** The entries of resource type {@code type} whose principal is exactly {@code principal}, in stored order. */
    List<Acl> ofPrincipal(byte type, String principal) {
        TypeAcls t = tables().get(type);
        List<Acl> entries = t == null ? null : t.byPrincipal.get(principal);
        return entries == null ? List.of() : entries;
    }

    private Map<Byte, TypeAcls> tables() {
        Map<Byte, TypeAcls> t = types;
        if (t == null) {
            synchronized (this) {
                t = types;
                if (t == null) {
                    t = build(all);
                    types = t;
                }
            }
        }
        return t;
    }

    private static Map<Byte, TypeAcls> build(List<Acl> all) {
        Map<Byte, TypeAcls> out = new HashMap<>();
        for (Acl a : all) {
            TypeAcls t = out.computeIfAbsent(a.resourceType(), k -> new TypeAcls());
            t.byPrincipal.computeIfAbsent(a.principal(), k -> new ArrayList<>(1)).add(a);
            if (a.patternType() == Acl.LITERAL) {
                t.literal.computeIfAbsent(a.resourceName(), k -> new Resource()).entries.add(a);
            } else if (a.patternType() == Acl.PREFIXED) {
                t.prefixed.computeIfAbsent(a.resourceName(), k -> new Resource()).entries.add(a);
            }
        }
        for (TypeAcls t : out.values()) {
            t.literal.values().forEach(Resource::finish);
            t.prefixed.values().forEach(Resource::finish);
            t.prefixLengths = lengths(t.prefixed.keySet());
        }
        return out;
    }

    /** The distinct lengths of {@code prefixes}, ascending. */
    private static int[] lengths(Set<String> prefixes) {
        if (prefixes.isEmpty()) {
            return NO_LENGTHS;
        }
        int[] lengths = new int[prefixes.size()];
        int i = 0;
        for (String p : prefixes) {
            lengths[i++] = p.length();
        }
        Arrays.sort(lengths);
        int distinct = 0;
        for (int length : lengths) {
            if (distinct == 0 || lengths[distinct - 1] != length) {
                lengths[distinct++] = length;
            }
        }
        return Arrays.copyOf(lengths, distinct);
    }

    /** The entries of one resource type. */
    private static final class TypeAcls {
        /** LITERAL entries by name, {@code *} included. */
        final Map<String, Resource> literal = new HashMap<>();
        /** PREFIXED entries by prefix. */
        final Map<String, Resource> prefixed = new HashMap<>();
        /** Every entry of the type by principal, in stored order. */
        final Map<String, List<Acl>> byPrincipal = new HashMap<>();
        int[] prefixLengths;
    }

    /** The entries of one pattern (resource type, pattern type, name). */
    private static final class Resource {
        final List<Acl> entries = new ArrayList<>(1);
        /** With more than {@value AclIndex#BY_PRINCIPAL_ABOVE} entries: the entries by principal; else null. */
        Map<String, List<Acl>> byPrincipal;

        void finish() {
            if (entries.size() > BY_PRINCIPAL_ABOVE) {
                byPrincipal = new HashMap<>();
                for (Acl a : entries) {
                    byPrincipal.computeIfAbsent(a.principal(), k -> new ArrayList<>(1)).add(a);
                }
            }
        }

        /** Adds to {@code out} the entries of {@code principal} and {@code User:*} (and perhaps others). */
        void applying(String principal, List<List<Acl>> out) {
            if (byPrincipal == null) {
                out.add(entries);
                return;
            }
            List<Acl> own = byPrincipal.get(principal);
            if (own != null) {
                out.add(own);
            }
            if (!Acl.WILDCARD_PRINCIPAL.equals(principal)) {
                List<Acl> everyone = byPrincipal.get(Acl.WILDCARD_PRINCIPAL);
                if (everyone != null) {
                    out.add(everyone);
                }
            }
        }
    }
}
