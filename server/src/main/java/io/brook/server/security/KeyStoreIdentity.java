package io.brook.server.security;

import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Enumeration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.security.auth.x500.X500Principal;

/**
 * Who a key store says the broker is: the subject and subject alternative names of each of its
 * certificates, in the store's order. A key store changed at run time must keep them (Kafka's
 * rule for a dynamic update: clients that verify the host name, and peers that pinned the DN,
 * keep trusting the broker) unless {@code ssl.allow.dn.changes} or {@code ssl.allow.san.changes}
 * allows it: the same number of certificates, each with the same DN (compared as names, or as
 * RFC 2253 text ignoring case) and at least the names it had. Immutable.
 */
final class KeyStoreIdentity {

    private record Entry(String alias, X500Principal subject, Set<List<?>> altNames) {
    }

    private final List<Entry> entries;

    private KeyStoreIdentity(List<Entry> entries) {
        this.entries = entries;
    }

    static KeyStoreIdentity of(KeyStore store) throws GeneralSecurityException {
        List<Entry> out = new ArrayList<>();
        Enumeration<String> aliases = store.aliases();
        while (aliases.hasMoreElements()) {
            String alias = aliases.nextElement();
            Certificate c = store.getCertificate(alias);
            if (c instanceof X509Certificate x) {
                Collection<List<?>> alt = x.getSubjectAlternativeNames();
                out.add(new Entry(alias, x.getSubjectX500Principal(),
                        alt == null ? Set.of() : Collections.unmodifiableSet(new HashSet<>(alt))));
            }
        }
        return new KeyStoreIdentity(List.copyOf(out));
    }

    /** Null when {@code next} may replace this identity, else why not. */
    String incompatible(KeyStoreIdentity next, boolean allowDnChanges, boolean allowSanChanges) {
        if (allowDnChanges && allowSanChanges) {
            return null;
        }
        if (next.entries.size() != entries.size()) {
            return "Keystore entries do not match, existing store contains " + entries.size()
                    + " entries, new store contains " + next.entries.size() + " entries";
        }
        for (int i = 0; i < entries.size(); i++) {
            Entry old = entries.get(i);
            Entry now = next.entries.get(i);
            if (!allowDnChanges && !old.subject().equals(now.subject())
                    && !old.subject().getName().equalsIgnoreCase(now.subject().getName())) {
                return "Keystore DistinguishedName does not match: existing={alias=" + old.alias() + ", DN="
                        + old.subject() + "}, new={alias=" + now.alias() + ", DN=" + now.subject() + "}";
            }
            if (!allowSanChanges && !now.altNames().containsAll(old.altNames())) {
                return "Keystore SubjectAltNames do not match: existing={alias=" + old.alias() + ", SAN="
                        + old.altNames() + "}, new={alias=" + now.alias() + ", SAN=" + now.altNames() + "}";
            }
        }
        return null;
    }
}
