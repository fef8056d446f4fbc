package io.brook.server.security.quota;

import io.brook.storage.file.DurableFiles;
import io.brook.storage.file.LineFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The quota settings of every entity, kept durably in the metadata directory (file
 * {@value #FILE_NAME}), one line per entity and key:
 *
 * <pre>
 * &lt;entity&gt; &lt;key&gt; &lt;value&gt;
 * </pre>
 *
 * where the entity is its parts joined by commas, each {@code type=+<base64 name>} or
 * {@code type=-} for the default entity. A change is written with
 * {@link DurableFiles#writeAtomically} (temp file, fsync, rename, directory fsync) before it is
 * visible; then the listener given at creation sees the new settings. In cluster mode the settings
 * are records of the cluster's metadata log instead ({@link QuotaLog}), and this
 * node's are the ones {@link #replaceAll} gives. Reads are lock-free (an immutable snapshot);
 * changes are serialized.
 */
public final class ClientQuotaStore {

    public static final String FILE_NAME = "client-quotas";
    private static final String HEADER = "# client quotas: entity key value (entity parts type=+<base64 name> or type=- for the default)";

    private final Path file;
    private volatile Map<QuotaEntity, Map<QuotaKey, Double>> quotas;
    private volatile Consumer<Map<QuotaEntity, Map<QuotaKey, Double>>> listener = q -> { };
    /** In cluster mode, the metadata log that keeps the settings (once the node joined it); null on a single node. */
    private volatile CompletableFuture<? extends QuotaLog> log;

    private ClientQuotaStore(Path file, Map<QuotaEntity, Map<QuotaKey, Double>> quotas) {
        this.file = file;
        this.quotas = quotas;
    }

    /** The quotas stored in {@code metaDir} (none when the file does not exist yet). */
    public static ClientQuotaStore open(Path metaDir) throws IOException {
        Path file = metaDir.resolve(FILE_NAME);
        Map<QuotaEntity, Map<QuotaKey, Double>> quotas = new LinkedHashMap<>();
        LineFiles.read(file, f -> {
            QuotaKey key = f.length == 3 ? QuotaKey.of(f[1]) : null;
            if (key == null) {
                throw new IllegalArgumentException("not a client quota");
            }
            quotas.computeIfAbsent(decode(f[0]), e -> new TreeMap<>()).put(key, Double.parseDouble(f[2]));
        });
        return new ClientQuotaStore(file, freeze(quotas));
    }

    /** Quotas that live in memory only (a broker without a metadata directory: tests). */
    public static ClientQuotaStore inMemory() {
        return new ClientQuotaStore(null, Map.of());
    }

    /** Every entity with settings, and its settings (an immutable snapshot). */
    public Map<QuotaEntity, Map<QuotaKey, Double>> all() {
        return quotas;
    }

    /** Called with the new settings after every change, and at once with the current ones. */
    public synchronized void listen(Consumer<Map<QuotaEntity, Map<QuotaKey, Double>>> l) {
        this.listener = l;
        l.accept(quotas);
    }

    /** One change of one entity: {@code value} null removes the key. */
    public record Change(QuotaEntity entity, QuotaKey key, Double value) {
    }

    /** Applies {@code changes} together, durably, then makes them visible. */
    public CompletableFuture<Void> apply(List<Change> changes) {
        CompletableFuture<? extends QuotaLog> l = log;
        if (l != null) {
            return l.thenCompose(m -> m.changeQuotas(changes));
        }
        try {
            applyHere(changes);
            return CompletableFuture.completedFuture(null);
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private synchronized void applyHere(List<Change> changes) throws IOException {
        Map<QuotaEntity, Map<QuotaKey, Double>> next = new LinkedHashMap<>();
        quotas.forEach((e, m) -> next.put(e, new TreeMap<>(m)));
        for (Change c : changes) {
            if (c.value() == null) {
                Map<QuotaKey, Double> m = next.get(c.entity());
                if (m != null) {
                    m.remove(c.key());
                    if (m.isEmpty()) {
                        next.remove(c.entity());
                    }
                }
            } else {
                next.computeIfAbsent(c.entity(), e -> new TreeMap<>()).put(c.key(), c.value());
            }
        }
        if (file != null) {
            DurableFiles.writeAtomically(file, encode(next));
        }
        quotas = freeze(next);
        listener.accept(quotas);
    }

    /**
     * Cluster mode: from now on the settings are kept by {@code log} (changes wait for it to
     * complete), and this node's are the ones {@link #replaceAll} gives.
     */
    public void keptIn(CompletableFuture<? extends QuotaLog> log) {
        this.log = log;
    }

    /** Cluster mode: the settings this node's metadata image holds now; the listener sees them. */
    public synchronized void replaceAll(Map<QuotaEntity, Map<QuotaKey, Double>> all) {
        quotas = freeze(all);
        listener.accept(quotas);
    }

    private static byte[] encode(Map<QuotaEntity, Map<QuotaKey, Double>> quotas) {
        StringBuilder out = new StringBuilder(HEADER).append('\n');
        quotas.forEach((entity, settings) -> settings.forEach((k, v) -> out.append(encode(entity)).append(' ')
                .append(k.key()).append(' ').append(v).append('\n')));
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static String encode(QuotaEntity entity) {
        Base64.Encoder b64 = Base64.getEncoder();
        StringBuilder b = new StringBuilder();
        entity.parts().forEach((type, name) -> b.append(b.length() == 0 ? "" : ",").append(type).append('=')
                .append(name == null ? "-" : "+" + b64.encodeToString(name.getBytes(StandardCharsets.UTF_8))));
        return b.toString();
    }

    private static QuotaEntity decode(String s) {
        QuotaEntity.Name user = null;
        QuotaEntity.Name client = null;
        QuotaEntity.Name ip = null;
        for (String part : s.split(",")) {
            int eq = part.indexOf('=');
            if (eq < 0 || eq + 1 >= part.length()) {
                throw new IllegalArgumentException("bad entity " + s);
            }
            String v = part.substring(eq + 1);
            QuotaEntity.Name name = v.equals("-") ? QuotaEntity.Name.DEFAULT : v.charAt(0) == '+'
                    ? QuotaEntity.Name.of(new String(Base64.getDecoder().decode(v.substring(1)), StandardCharsets.UTF_8))
                    : null;
            if (name == null) {
                throw new IllegalArgumentException("bad entity " + s);
            }
            switch (part.substring(0, eq)) {
                case QuotaEntity.USER -> user = name;
                case QuotaEntity.CLIENT_ID -> client = name;
                case QuotaEntity.IP -> ip = name;
                default -> throw new IllegalArgumentException("bad entity type in " + s);
            }
        }
        return new QuotaEntity(user, client, ip);
    }

    private static Map<QuotaEntity, Map<QuotaKey, Double>> freeze(Map<QuotaEntity, Map<QuotaKey, Double>> quotas) {
        Map<QuotaEntity, Map<QuotaKey, Double>> out = new LinkedHashMap<>();
        quotas.forEach((e, m) -> out.put(e, Collections.unmodifiableMap(new TreeMap<>(m))));
        return Collections.unmodifiableMap(out);
    }
}
