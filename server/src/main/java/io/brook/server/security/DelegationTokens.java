package io.brook.server.security;

import io.brook.storage.file.DurableFiles;
import io.brook.storage.file.LineFiles;
import io.brook.wire.protocol.Errors;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's delegation tokens (KIP-48): created, renewed, expired and described with Kafka's
 * rules, and the SCRAM credentials a client logs in with by presenting one (the token id as user
 * name, the base64 of its HMAC as password, the SCRAM extension {@code tokenauth=true}).
 *
 * <p>Enabled by {@code delegation.token.secret.key}, as in Kafka: without it every request is
 * DELEGATION_TOKEN_AUTH_DISABLED. A token's HMAC is HMAC-SHA512 of its id under that key, so it
 * is never stored; every broker of a cluster needs the same key. A new token lasts
 * {@code delegation.token.expiry.time.ms} (a renewal moves that on), never beyond its creation
 * plus {@code delegation.token.max.lifetime.ms} (or the shorter lifetime the request asks).
 * Tokens past either time are dropped by a sweep at most every
 * {@code delegation.token.expiry.check.interval.ms}, made when tokens are used; until then
 * DescribeDelegationToken still lists them and RenewDelegationToken answers
 * DELEGATION_TOKEN_EXPIRED, as Kafka does, but a login with one is refused at once.
 *
 * <p>On a single node the tokens are kept in the metadata directory (file {@value #FILE_NAME},
 * one line per token, replaced with {@link DurableFiles#writeAtomically} before a change is
 * answered); in cluster mode they are records of the cluster's metadata log
 * ({@link SecurityMetadataLog#changeTokens}) and this node's are the ones {@link #replaceAll}
 * gives. Reads are lock-free (an immutable snapshot); changes are serialized. A renewal, or an
 * expiry with a period of 0 or more, is a new expiry for a token id, never the token written
 * again: it applies only to a token still held (on a single node its check and write are one
 * step; in cluster mode the cluster's metadata rejects it once another node removed the token),
 * so it cannot bring back a token removed meanwhile, and is answered DELEGATION_TOKEN_NOT_FOUND.
 */
public final class DelegationTokens {

    private static final Logger LOG = LoggerFactory.getLogger(DelegationTokens.class);

    static final String FILE_NAME = "delegation-tokens";
    private static final String HEADER =
            "# delegation tokens: id issued max expiry owner requester renewers (principals base64, renewers ';'-separated or -)";
    private static final String HMAC_ALGORITHM = "HmacSHA512";
    private static final SecureRandom RANDOM = new SecureRandom();

    public static final String SECRET_KEY = "delegation.token.secret.key";
    public static final String MAX_LIFETIME_MS = "delegation.token.max.lifetime.ms";
    public static final String EXPIRY_TIME_MS = "delegation.token.expiry.time.ms";
    public static final String EXPIRY_CHECK_INTERVAL_MS = "delegation.token.expiry.check.interval.ms";

    /** The settings, with Kafka's defaults: 7 days, 1 day, 1 hour. */
    public record Settings(String secretKey, long maxLifetimeMs, long expiryTimeMs, long expiryCheckIntervalMs) {

        public Settings {
            if (secretKey != null && secretKey.isEmpty()) {
                throw new IllegalArgumentException(SECRET_KEY + " must not be empty");
            }
            if (maxLifetimeMs < 1 || expiryTimeMs < 1 || expiryCheckIntervalMs < 1) {
                throw new IllegalArgumentException(MAX_LIFETIME_MS + ", " + EXPIRY_TIME_MS + " and "
                        + EXPIRY_CHECK_INTERVAL_MS + " must be at least 1");
            }
        }

        /** The delegation token settings of a broker configuration's security settings. */
        public static Settings of(Map<String, String> settings) {
            return new Settings(settings.get(SECRET_KEY), longSetting(settings, MAX_LIFETIME_MS, 7 * 24 * 3_600_000L),
                    longSetting(settings, EXPIRY_TIME_MS, 24 * 3_600_000L),
                    longSetting(settings, EXPIRY_CHECK_INTERVAL_MS, 3_600_000L));
        }

        /** Tokens disabled (no secret key). */
        public static Settings disabled() {
            return of(Map.of());
        }

        private static long longSetting(Map<String, String> settings, String name, long defaultValue) {
            String v = settings.get(name);
            if (v == null || v.isBlank()) {
                return defaultValue;
            }
            try {
                return Long.parseLong(v.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("Invalid value " + v + " for configuration " + name
                        + ": Not a number of type LONG", e);
            }
        }
    }

    /** A created token and its HMAC (what CreateDelegationToken answers), or the error instead. */
    public record Created(Errors error, DelegationToken token, byte[] hmac) {
    }

    /** The answer to a renewal or an expiry: the error, or NONE and the token's new expiry. */
    public record Changed(Errors error, long expiryTimestampMs) {
    }

    /** What a token login checks: the owner it stands for, its SCRAM credential, when it expires. */
    record Login(String owner, ScramCredential credential, long expiresAtMs) {
    }

    /** The state: the tokens by id and the id of each token's HMAC (base64). */
    private record State(Map<String, DelegationToken> byId, Map<String, String> idByHmac) {
    }

    private final Path file;
    private final Settings settings;
    private final LongSupplier nowMs;
    private volatile State state;
    private volatile long nextSweepMs;
    /** The SCRAM credentials of the tokens logged in with, by token id and mechanism (dropped with the token). */
    private final Map<String, ScramCredential> credentials = new ConcurrentHashMap<>();
    /** In cluster mode, the metadata log that keeps the tokens (once the node joined it); null on a single node. */
    private volatile CompletableFuture<SecurityMetadataLog> log;

    private DelegationTokens(Path file, Settings settings, LongSupplier nowMs, Collection<DelegationToken> tokens) {
        this.file = file;
        this.settings = settings;
        this.nowMs = nowMs;
        this.state = state(tokens);
        this.nextSweepMs = nowMs.getAsLong() + settings.expiryCheckIntervalMs();
    }

    /** The tokens kept in {@code metaDir} (none when the file does not exist yet; null: in memory only). */
    public static DelegationTokens open(Path metaDir, Settings settings, LongSupplier nowMs) throws IOException {
        List<DelegationToken> tokens = new ArrayList<>();
        Path f = metaDir == null ? null : metaDir.resolve(FILE_NAME);
        if (f != null) {
            LineFiles.read(f, fields -> tokens.add(decode(fields)));
        }
        return new DelegationTokens(f, settings, nowMs, tokens);
    }

    /** Whether tokens are enabled ({@code delegation.token.secret.key} is set). */
    public boolean enabled() {
        return settings.secretKey() != null;
    }

    /**
     * Creates a token for {@code owner} at {@code requester}'s request (the caller checked that
     * the requester may), renewable by {@code renewers}, lasting at most {@code maxLifetimeMs}
     * when above 0 and below the configured maximum.
     */
    public synchronized CompletableFuture<Created> create(String owner, String requester, List<String> renewers, long maxLifetimeMs) {
        if (!enabled()) {
            return CompletableFuture.completedFuture(new Created(Errors.DELEGATION_TOKEN_AUTH_DISABLED, null, null));
        }
        long now = nowMs.getAsLong();
        maybeSweep(now);
        long lifetime = maxLifetimeMs > 0 ? Math.min(settings.maxLifetimeMs(), maxLifetimeMs) : settings.maxLifetimeMs();
        long max = plus(now, lifetime);
        long expiry = Math.min(max, plus(now, settings.expiryTimeMs()));
        DelegationToken token = new DelegationToken(newTokenId(), owner, requester, renewers, now, max, expiry);
        return change(List.of(token), Map.of(), List.of())
                .thenApply(missed -> new Created(Errors.NONE, token, hmac(token.tokenId())));
    }

    /** Renews the token whose HMAC is {@code hmac} for {@code renewPeriodMs} (the configured expiry time when 0 or less). */
    public synchronized CompletableFuture<Changed> renew(byte[] hmac, String principal, long renewPeriodMs) {
        long now = nowMs.getAsLong();
        Lookup found = lookup(hmac, principal, now, true);
        if (found.refusal() != null) {
            return changed(found.refusal());
        }
        DelegationToken token = found.token();
        long period = renewPeriodMs > 0 ? Math.min(settings.expiryTimeMs(), renewPeriodMs) : settings.expiryTimeMs();
        return newExpiry(token, Math.min(token.maxTimestampMs(), plus(now, period)));
    }

    /**
     * Sets the token whose HMAC is {@code hmac} to expire {@code periodMs} from now (not beyond its
     * maximum), or removes it at once when {@code periodMs} is below 0.
     */
    public synchronized CompletableFuture<Changed> expire(byte[] hmac, String principal, long periodMs) {
        long now = nowMs.getAsLong();
        Lookup found = lookup(hmac, principal, now, false);
        if (found.refusal() != null) {
            return changed(found.refusal());
        }
        DelegationToken token = found.token();
        if (periodMs < 0) {
            return change(List.of(), Map.of(), List.of(token.tokenId()))
                    .thenApply(missed -> new Changed(Errors.NONE, now));
        }
        if (token.expiredAt(now)) {
            return changed(Errors.DELEGATION_TOKEN_EXPIRED);
        }
        return newExpiry(token, Math.min(token.maxTimestampMs(), plus(now, periodMs)));
    }

    /**
     * Moves {@code token}'s expiry to {@code expiryMs}, if the token is still held when the change
     * applies: DELEGATION_TOKEN_NOT_FOUND when it was removed first (in cluster mode, through
     * another node after this node's check).
     */
    private CompletableFuture<Changed> newExpiry(DelegationToken token, long expiryMs) {
        String id = token.tokenId();
        return change(List.of(), Map.of(id, expiryMs), List.of()).thenApply(missed -> missed.contains(id)
                ? new Changed(Errors.DELEGATION_TOKEN_NOT_FOUND, -1) : new Changed(Errors.NONE, expiryMs));
    }

    /** Every token kept (after a sweep when one is due), in token id order. */
    public List<DelegationToken> all() {
        maybeSweep(nowMs.getAsLong());
        return List.copyOf(state.byId().values());
    }

    /** The HMAC of the token {@code tokenId}: its password, which only the owner and renewers are shown. */
    public byte[] hmac(String tokenId) {
        try {
            Mac mac = Mac.getInstance(HMAC_ALGORITHM);
            mac.init(new SecretKeySpec(settings.secretKey().getBytes(StandardCharsets.UTF_8), HMAC_ALGORITHM));
            return mac.doFinal(tokenId.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK has no " + HMAC_ALGORITHM, e);
        }
    }

    /**
     * What a SCRAM login with the token {@code tokenId} is checked against, or null when there is
     * no such token (or tokens are disabled, or it expired: Brook refuses it at once where Kafka
     * accepts it until its sweep). The credential is derived from the token's HMAC with a salt
     * of this node's, once per token and mechanism.
     */
    Login login(String tokenId, ScramMechanism mechanism) {
        if (!enabled()) {
            return null;
        }
        long now = nowMs.getAsLong();
        maybeSweep(now);
        DelegationToken token = state.byId().get(tokenId);
        if (token == null || token.expiredAt(now)) {
            return null;
        }
        ScramCredential c = credentials.computeIfAbsent(tokenId + " " + mechanism.mechanismName(), k -> {
            byte[] salt = ScramMechanism.salt(new BigInteger(ScramMechanism.SALT_BITS, RANDOM));
            String password = Base64.getEncoder().encodeToString(hmac(tokenId));
            return mechanism.credential(salt, mechanism.saltedPassword(password, salt, ScramMechanism.MIN_ITERATIONS),
                    ScramMechanism.MIN_ITERATIONS);
        });
        return new Login(token.owner(), c, Math.min(token.expiryTimestampMs(), token.maxTimestampMs()));
    }

    /** Cluster mode: from now on {@code log} keeps the tokens, and this node's are the ones {@link #replaceAll} gives. */
    void keptIn(CompletableFuture<SecurityMetadataLog> log) {
        this.log = log;
    }

    /** Cluster mode: the tokens this node's metadata image holds now. */
    public void replaceAll(Collection<DelegationToken> tokens) {
        install(state(tokens));
    }

    /** The token a renewal or an expiry names, or why {@code principal} may not change it. */
    private record Lookup(DelegationToken token, Errors refusal) {
    }

    /**
     * The token whose HMAC is {@code hmac}, if {@code principal} may renew or expire it at
     * {@code now}; else Kafka's error, in Kafka's order (an expired token is checked before the
     * owner for a renewal, not at all here for an expiry). Sweeps first when a sweep is due.
     */
    private Lookup lookup(byte[] hmac, String principal, long now, boolean renewal) {
        if (!enabled()) {
            return new Lookup(null, Errors.DELEGATION_TOKEN_AUTH_DISABLED);
        }
        maybeSweep(now);
        DelegationToken token = byHmac(hmac);
        if (token == null) {
            return new Lookup(null, Errors.DELEGATION_TOKEN_NOT_FOUND);
        }
        if (renewal && token.expiredAt(now)) {
            return new Lookup(token, Errors.DELEGATION_TOKEN_EXPIRED);
        }
        return new Lookup(token, token.mayRenew(principal) ? null : Errors.DELEGATION_TOKEN_OWNER_MISMATCH);
    }

    private DelegationToken byHmac(byte[] hmac) {
        String id = hmac == null ? null : state.idByHmac().get(Base64.getEncoder().encodeToString(hmac));
        return id == null ? null : state.byId().get(id);
    }

    private CompletableFuture<Changed> changed(Errors error) {
        return CompletableFuture.completedFuture(new Changed(error, -1));
    }

    /** Drops the tokens past their expiry, when the check interval has passed since the last sweep. */
    private void maybeSweep(long now) {
        if (now < nextSweepMs) {
            return;
        }
        nextSweepMs = now + settings.expiryCheckIntervalMs();
        List<String> expired = new ArrayList<>();
        state.byId().forEach((id, t) -> {
            if (t.expiredAt(now)) {
                LOG.info("Delegation token {} of {} expired", id, t.owner());
                expired.add(id);
            }
        });
        if (!expired.isEmpty()) {
            change(List.of(), Map.of(), expired).whenComplete((v, e) -> {
                if (e != null) {
                    LOG.warn("Could not remove expired delegation tokens: {}", e.toString());
                }
            });
        }
    }

    /**
     * Applies the changes durably (here, or through the cluster's metadata log), then makes them
     * visible: the tokens {@code created}, the new expiries by token id, the removals, in that
     * order. Completes with the ids of {@code newExpiries} that did not apply (no such token).
     */
    private CompletableFuture<Set<String>> change(List<DelegationToken> created, Map<String, Long> newExpiries,
            List<String> removed) {
        CompletableFuture<SecurityMetadataLog> l = log;
        if (l != null) {
            return l.thenCompose(m -> m.changeTokens(created, newExpiries, removed));
        }
        try {
            return CompletableFuture.completedFuture(changeHere(created, newExpiries, removed));
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * A single node's change, under the same rules as the cluster's metadata: a new expiry
     * applies only to a token held, and not beyond its maximum time. Returns the ids of the new
     * expiries that did not apply; the file is written only when something changed.
     */
    private synchronized Set<String> changeHere(List<DelegationToken> created, Map<String, Long> newExpiries,
            List<String> removed) throws IOException {
        Map<String, DelegationToken> next = new TreeMap<>(state.byId());
        boolean changed = !created.isEmpty();
        created.forEach(t -> next.put(t.tokenId(), t));
        Set<String> missed = new HashSet<>();
        for (Map.Entry<String, Long> e : newExpiries.entrySet()) {
            DelegationToken t = next.get(e.getKey());
            if (t == null || e.getValue() > t.maxTimestampMs()) {
                missed.add(e.getKey());
            } else {
                next.put(t.tokenId(), t.withExpiry(e.getValue()));
                changed = true;
            }
        }
        for (String id : removed) {
            changed |= next.remove(id) != null;
        }
        if (changed) {
            if (file != null) {
                DurableFiles.writeAtomically(file, encode(next.values()));
            }
            install(state(next.values()));
        }
        return Set.copyOf(missed);
    }

    private void install(State next) {
        state = next;
        credentials.keySet().removeIf(k -> !next.byId().containsKey(k.substring(0, k.indexOf(' '))));
    }

    /** The state of {@code tokens}, reusing the HMACs the current state computed (each is an HMAC-SHA512). */
    private State state(Collection<DelegationToken> tokens) {
        State current = state;
        Map<String, String> known = new HashMap<>();
        if (current != null) {
            current.idByHmac().forEach((hmac, id) -> known.put(id, hmac));
        }
        Map<String, DelegationToken> byId = new TreeMap<>();
        Map<String, String> idByHmac = new HashMap<>();
        for (DelegationToken t : tokens) {
            byId.put(t.tokenId(), t);
            if (enabled()) {
                String hmac = known.get(t.tokenId());
                idByHmac.put(hmac != null ? hmac : Base64.getEncoder().encodeToString(hmac(t.tokenId())), t.tokenId());
            }
        }
        return new State(java.util.Collections.unmodifiableMap(byId), Map.copyOf(idByHmac));
    }

    /** A new token id: 16 random bytes in URL-safe base64, the form of Kafka's ids. */
    private static String newTokenId() {
        byte[] b = new byte[16];
        RANDOM.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    private static long plus(long now, long duration) {
        return now > Long.MAX_VALUE - duration ? Long.MAX_VALUE : now + duration;
    }

    private static byte[] encode(Collection<DelegationToken> tokens) {
        StringBuilder out = new StringBuilder(HEADER).append('\n');
        for (DelegationToken t : tokens) {
            List<String> renewers = new ArrayList<>();
            t.renewers().forEach(r -> renewers.add(b64(r)));
            out.append(t.tokenId()).append(' ').append(t.issueTimestampMs()).append(' ').append(t.maxTimestampMs())
                    .append(' ').append(t.expiryTimestampMs()).append(' ').append(b64(t.owner())).append(' ')
                    .append(b64(t.requester())).append(' ')
                    .append(renewers.isEmpty() ? "-" : String.join(";", renewers)).append('\n');
        }
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static DelegationToken decode(String[] f) {
        if (f.length != 7) {
            throw new IllegalArgumentException("not a delegation token");
        }
        List<String> renewers = new ArrayList<>();
        if (!f[6].equals("-")) {
            for (String r : f[6].split(";")) {
                renewers.add(unb64(r));
            }
        }
        return new DelegationToken(f[0], unb64(f[4]), unb64(f[5]), renewers, Long.parseLong(f[1]),
                Long.parseLong(f[2]), Long.parseLong(f[3]));
    }

    private static String b64(String s) {
        return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }

    private static String unb64(String s) {
        return new String(Base64.getDecoder().decode(s), StandardCharsets.UTF_8);
    }
}
