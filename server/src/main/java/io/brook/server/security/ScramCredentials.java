package io.brook.server.security;

import io.brook.storage.file.DurableFiles;
import io.brook.storage.file.LineFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * The SCRAM credentials of every user, kept durably in the metadata directory (file
 * {@value #FILE_NAME}), one line per user and mechanism:
 *
 * <pre>
 * &lt;mechanism&gt; &lt;iterations&gt; &lt;base64 user&gt; &lt;base64 salt&gt; &lt;base64 stored key&gt; &lt;base64 server key&gt;
 * </pre>
 *
 * A change is written with {@link DurableFiles#writeAtomically} (temp file, fsync, rename,
 * directory fsync) before it is visible: a credential acknowledged to the client survives a
 * crash, and a crash never leaves half a file. In cluster mode the credentials are records of the
 * cluster's metadata log instead ({@link SecurityMetadataLog}) and this node's are the ones
 * {@link #replaceAll} gives. A login may also present a delegation token ({@link #tokenLogin}). Reads are lock-free (an immutable snapshot); changes are serialized.
 */
public final class ScramCredentials {

    static final String FILE_NAME = "scram-credentials";
    private static final String HEADER = "# SCRAM credentials: mechanism iterations user salt stored-key server-key (base64)";
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Path file;
    private volatile Map<String, Map<ScramMechanism, ScramCredential>> users;
    /** In cluster mode, the metadata log that keeps the credentials (once the node joined it); null on a single node. */
    private volatile CompletableFuture<SecurityMetadataLog> log;
    /** The delegation tokens a client may log in with instead of a user's password (none until set). */
    private volatile DelegationTokens tokens;

    private ScramCredentials(Path file, Map<String, Map<ScramMechanism, ScramCredential>> users) {
        this.file = file;
        this.users = users;
    }

    /** The credentials stored in {@code metaDir} (none when the file does not exist yet). */
    public static ScramCredentials open(Path metaDir) throws IOException {
        Path file = metaDir.resolve(FILE_NAME);
        Map<String, Map<ScramMechanism, ScramCredential>> users = new TreeMap<>();
        Base64.Decoder b64 = Base64.getDecoder();
        LineFiles.read(file, f -> {
            ScramMechanism m = f.length == 6 ? ScramMechanism.ofName(f[0]) : null;
            if (m == null) {
                throw new IllegalArgumentException("not a SCRAM credential");
            }
            String user = new String(b64.decode(f[2]), StandardCharsets.UTF_8);
            users.computeIfAbsent(user, u -> new EnumMap<>(ScramMechanism.class)).put(m,
                    new ScramCredential(b64.decode(f[3]), b64.decode(f[4]), b64.decode(f[5]), Integer.parseInt(f[1])));
        });
        return new ScramCredentials(file, freeze(users));
    }

    /** Credentials that live in memory only (a broker without a metadata directory: tests). */
    public static ScramCredentials inMemory() {
        return new ScramCredentials(null, Map.of());
    }

    /** Lets clients log in with the delegation tokens of {@code tokens} (SCRAM's {@code tokenauth} extension). */
    void acceptTokensOf(DelegationTokens tokens) {
        this.tokens = tokens;
    }

    /** What a login with the delegation token {@code tokenId} is checked against, or null (no such usable token). */
    DelegationTokens.Login tokenLogin(String tokenId, ScramMechanism mechanism) {
        DelegationTokens t = tokens;
        return t == null ? null : t.login(tokenId, mechanism);
    }

    ScramCredential get(String user, ScramMechanism mechanism) {
        Map<ScramMechanism, ScramCredential> m = users.get(user);
        return m == null ? null : m.get(mechanism);
    }

    /** Every user with credentials, and the iteration count of each mechanism it has. */
    public Map<String, Map<ScramMechanism, Integer>> describe() {
        Map<String, Map<ScramMechanism, Integer>> out = new TreeMap<>();
        users.forEach((user, creds) -> {
            Map<ScramMechanism, Integer> it = new EnumMap<>(ScramMechanism.class);
            creds.forEach((m, c) -> it.put(m, c.iterations()));
            out.put(user, it);
        });
        return out;
    }

    /** One change: a new salted password (salt and salted password given), or a deletion (both null). */
    public record Change(String user, ScramMechanism mechanism, int iterations, byte[] salt, byte[] saltedPassword) {

        /** What is kept of a new password (null for a deletion). */
        public Stored stored() {
            if (salt == null) {
                return null;
            }
            ScramCredential c = mechanism.credential(salt, saltedPassword, iterations);
            return new Stored(user, mechanism, c.iterations(), c.salt(), c.storedKey(), c.serverKey());
        }
    }

    /** A user's credential for one mechanism as it is kept: salted and hashed, never a password. */
    public record Stored(String user, ScramMechanism mechanism, int iterations, byte[] salt, byte[] storedKey,
            byte[] serverKey) {
    }

    /** Applies {@code changes} together, durably, then makes them visible. */
    public CompletableFuture<Void> apply(List<Change> changes) {
        CompletableFuture<SecurityMetadataLog> l = log;
        if (l != null) {
            return l.thenCompose(m -> m.changeCredentials(changes));
        }
        try {
            applyHere(changes);
            return CompletableFuture.completedFuture(null);
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private synchronized void applyHere(List<Change> changes) throws IOException {
        Map<String, Map<ScramMechanism, ScramCredential>> next = new TreeMap<>();
        users.forEach((u, m) -> next.put(u, new EnumMap<>(m)));
        for (Change c : changes) {
            if (c.salt() == null) {
                Map<ScramMechanism, ScramCredential> m = next.get(c.user());
                if (m != null) {
                    m.remove(c.mechanism());
                    if (m.isEmpty()) {
                        next.remove(c.user());
                    }
                }
            } else {
                next.computeIfAbsent(c.user(), u -> new EnumMap<>(ScramMechanism.class)).put(c.mechanism(),
                        c.mechanism().credential(c.salt(), c.saltedPassword(), c.iterations()));
            }
        }
        if (file != null) {
            DurableFiles.writeAtomically(file, encode(next));
        }
        users = freeze(next);
    }

    /** Every credential kept, by user and mechanism. */
    public List<Stored> stored() {
        List<Stored> out = new ArrayList<>();
        users.forEach((user, creds) -> creds.forEach((m, c) -> out.add(new Stored(user, m, c.iterations(), c.salt(),
                c.storedKey(), c.serverKey()))));
        return out;
    }

    /**
     * Cluster mode: from now on the credentials are kept by {@code log} (changes wait for it to
     * complete), and this node's are the ones {@link #replaceAll} gives.
     */
    void keptIn(CompletableFuture<SecurityMetadataLog> log) {
        this.log = log;
    }

    /** Cluster mode: the credentials this node's metadata image holds now. */
    public void replaceAll(List<Stored> all) {
        Map<String, Map<ScramMechanism, ScramCredential>> next = new TreeMap<>();
        for (Stored s : all) {
            next.computeIfAbsent(s.user(), u -> new EnumMap<>(ScramMechanism.class)).put(s.mechanism(),
                    new ScramCredential(s.salt(), s.storedKey(), s.serverKey(), s.iterations()));
        }
        users = freeze(next);
    }

    /** Adds {@code user}'s password for {@code mechanism} unless it has one already (the bootstrap users). */
    public synchronized boolean addIfAbsent(String user, ScramMechanism mechanism, String password, int iterations)
            throws IOException {
        if (get(user, mechanism) != null) {
            return false;
        }
        byte[] salt = ScramMechanism.salt(new java.math.BigInteger(ScramMechanism.SALT_BITS, RANDOM));
        applyHere(List.of(new Change(user, mechanism, iterations, salt,
                mechanism.saltedPassword(password, salt, iterations))));
        return true;
    }

    private static byte[] encode(Map<String, Map<ScramMechanism, ScramCredential>> users) {
        Base64.Encoder b64 = Base64.getEncoder();
        StringBuilder out = new StringBuilder(HEADER).append('\n');
        users.forEach((user, creds) -> creds.forEach((m, c) -> out.append(m.mechanismName()).append(' ')
                .append(c.iterations()).append(' ').append(b64.encodeToString(user.getBytes(StandardCharsets.UTF_8)))
                .append(' ').append(b64.encodeToString(c.salt())).append(' ').append(b64.encodeToString(c.storedKey()))
                .append(' ').append(b64.encodeToString(c.serverKey())).append('\n')));
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static Map<String, Map<ScramMechanism, ScramCredential>> freeze(
            Map<String, Map<ScramMechanism, ScramCredential>> users) {
        Map<String, Map<ScramMechanism, ScramCredential>> out = new TreeMap<>();
        users.forEach((u, m) -> out.put(u, Collections.unmodifiableMap(new EnumMap<>(m))));
        return Collections.unmodifiableMap(out);
    }
}
