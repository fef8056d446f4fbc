package io.brook.server.api;

import io.brook.coordinator.txn.TransactionCoordinator;
import io.brook.storage.file.DurableFiles;
import io.brook.wire.message.ApiVersionsResponse;
import io.brook.wire.message.ApiVersionsResponse.FinalizedFeatureKey;
import io.brook.wire.message.ApiVersionsResponse.SupportedFeatureKey;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The feature levels of this broker (KIP-584): for each feature the range of levels Brook
 * implements (supported) and the level in force (finalized), as the ApiVersions response carries
 * them from v3 on. Clients turn protocol behaviour on by finalized level: the Java producer uses
 * transactions V2 (KIP-890) only when {@code transaction.version} is finalized at 2 or more.
 *
 * <p>The features are those Apache Kafka 4.4 lists for a broker (its production features and
 * {@code metadata.version}); the levels are what Brook implements today, not Kafka's:
 *
 * <table>
 *   <caption>Levels</caption>
 *   <tr><th>feature</th><th>supported</th><th>finalized</th><th>why</th></tr>
 *   <tr><td>metadata.version</td><td>33–33</td><td>33</td><td>4.4-IV2, the metadata version of
 *       Kafka 4.4 whose APIs Brook serves; there is no metadata log to run at an older one
 *       (Kafka supports 7–33)</td></tr>
 *   <tr><td>kraft.version</td><td>0–0</td><td>0</td><td>no KRaft quorum (Kafka 0–1)</td></tr>
 *   <tr><td>transaction.version</td><td>0–2</td><td>2 for a new data directory, else 0 (or
 *       what an operator finalized)</td><td>transactions V2 (KIP-890), the levels the transaction
 *       coordinator implements ({@code TransactionCoordinator.TRANSACTION_VERSION}); a new data
 *       directory is finalized at 2 as Kafka 4.x formats a new cluster (see
 *       {@link #persistIn(Path, boolean)}), one written by an older Brook keeps level 0 until an
 *       operator upgrades it, so that it stays readable by that Brook; classic clients keep working
 *       on V1 at any level</td></tr>
 *   <tr><td>group.version</td><td>0–1</td><td>1</td><td>KIP-848 consumer groups
 *       (ConsumerGroupHeartbeat), on by default as in Kafka 4.x; an operator who finalizes 0 turns
 *       them off (ConsumerGroupHeartbeat then answers UNSUPPORTED_VERSION, as Kafka does)</td></tr>
 *   <tr><td>eligible.leader.replicas.version</td><td>0–0</td><td>0</td><td>no replication
 *       (Kafka 0–1)</td></tr>
 *   <tr><td>share.version</td><td>0–0</td><td>0</td><td>no share groups (Kafka 0–2)</td></tr>
 *   <tr><td>streams.version</td><td>0–0</td><td>0</td><td>no streams groups (Kafka 0–1)</td></tr>
 * </table>
 *
 * <p>Code that implements a higher level raises the supported maximum with
 * {@link #setSupported(String, short, short)} and turns it on with {@link #setFinalized(String, short)}.
 *
 * <p>What the ApiVersions response shows, as Kafka shows it: every supported feature with its
 * range, except, for requests below v4, those whose minimum is 0 (older clients fail to read
 * them, KAFKA-17492); only the finalized features whose level is not 0, each with min = max =
 * its level; and the finalized-features epoch. Java clients keep the features of the answer with
 * the highest epoch they have seen, so the epoch must grow with every change, also across
 * restarts: it is the wall-clock time in milliseconds when the levels were set, raised by one when
 * two changes fall into the same millisecond (Kafka uses the offset of the change in its metadata
 * log).
 *
 * <p>Levels an operator finalizes (UpdateFeatures, {@code kafka-features.sh}) go through
 * {@link #finalizeLevels(Map)}: once {@link #persistIn(Path, boolean)} named a file, they are written there
 * durably before they are in force, and read back at the next start, where they replace the
 * defaults above (only the features an operator set; the others keep Brook's default level). A
 * stored level outside what this Brook supports stops the start, as an incompatible finalized
 * level stops a Kafka broker.
 *
 * <p>Thread-safe: changes replace an immutable snapshot that the ApiVersions handler reads.
 */
public final class FeatureLevels {

    public static final String METADATA_VERSION = "metadata.version";
    public static final String KRAFT_VERSION = "kraft.version";
    public static final String TRANSACTION_VERSION = "transaction.version";
    public static final String GROUP_VERSION = "group.version";
    public static final String ELIGIBLE_LEADER_REPLICAS_VERSION = "eligible.leader.replicas.version";
    public static final String SHARE_VERSION = "share.version";
    public static final String STREAMS_VERSION = "streams.version";

    /** {@code transaction.version} of a new data directory: transactions V2, as Kafka 4.x formats a new cluster. */
    static final short NEW_DATA_DIR_TRANSACTION_VERSION = 2;

    /** Kafka 4.4's {@code metadata.version} 4.4-IV2, the level whose APIs Brook serves. */
    public static final short METADATA_VERSION_4_4_IV2 = 33;

    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();

    /** The first ApiVersions version that may list supported features whose minimum is 0 (KAFKA-17492). */
    static final short LEVEL_0_MIN_VERSION = 4;

    /** A feature's levels: supported {@code min..max}, finalized {@code level} (0: off). */
    public record Levels(short min, short max, short level) {
        public Levels {
            if (min < 0 || min > max || level < 0 || level > max || level != 0 && level < min) {
                throw new IllegalArgumentException("bad levels: supported " + min + ".." + max + ", finalized " + level);
            }
        }
    }

    /** What the ApiVersions response shows; immutable. */
    private record Snapshot(Map<String, Levels> features, long epoch, List<SupportedFeatureKey> supportedAll,
            List<SupportedFeatureKey> supportedWithoutLevel0, List<FinalizedFeatureKey> finalized) {
    }

    /** Name of the file in the meta directory that keeps the levels operators finalized. */
    public static final String FILE = "finalized-features";

    /** Key of the epoch in the file of {@link #persistIn(Path, boolean)}; the levels are under {@value #LEVEL_PREFIX}. */
    private static final String EPOCH_KEY = "epoch";
    private static final String LEVEL_PREFIX = "level.";

    private final Clock clock;
    private volatile Snapshot snapshot;
    /** Where finalized levels are kept, or null (not persisted). Guarded by this. */
    private Path file;
    /** The levels operators finalized, as stored in {@link #file}. Guarded by this. */
    private Map<String, Short> operatorLevels = Map.of();

    private FeatureLevels(Clock clock, Map<String, Levels> features) {
        this.clock = clock;
        this.snapshot = snapshot(features, clock.millis());
    }

    /** Brook's levels today (see the class comment), with the epoch taken from {@code clock}. */
    public static FeatureLevels brookDefaults(Clock clock) {
        Map<String, Levels> f = new LinkedHashMap<>();
        f.put(METADATA_VERSION, new Levels(METADATA_VERSION_4_4_IV2, METADATA_VERSION_4_4_IV2, METADATA_VERSION_4_4_IV2));
        for (String name : List.of(KRAFT_VERSION, TRANSACTION_VERSION, GROUP_VERSION,
                ELIGIBLE_LEADER_REPLICAS_VERSION, SHARE_VERSION, STREAMS_VERSION)) {
            f.put(name, new Levels((short) 0, (short) 0, (short) 0));
        }
        f.put(GROUP_VERSION, new Levels((short) 0, (short) 1, (short) 1));
        // transactions V2 is finalized for a new data directory only (persistIn)
        f.put(TRANSACTION_VERSION, new Levels((short) 0, TransactionCoordinator.TRANSACTION_VERSION, (short) 0));
        return new FeatureLevels(clock, f);
    }

    /** The levels of {@code feature}, or null when this broker does not know it. */
    public Levels levels(String feature) {
        return snapshot.features.get(feature);
    }

    /** The finalized level of {@code feature}; 0 when unknown or off. */
    public short finalizedLevel(String feature) {
        Levels l = levels(feature);
        return l == null ? 0 : l.level;
    }

    /** The epoch of the finalized levels. */
    public long epoch() {
        return snapshot.epoch;
    }

    /**
     * Sets the levels Brook implements for {@code feature} (added when new); the finalized level
     * must stay within them.
     */
    public synchronized void setSupported(String feature, short min, short max) {
        Levels old = snapshot.features.get(feature);
        change(feature, new Levels(min, max, old == null ? 0 : old.level));
    }

    /** Finalizes {@code feature} at {@code level} (0 turns it off), which must be supported. */
    public synchronized void setFinalized(String feature, short level) {
        Levels old = snapshot.features.get(feature);
        if (old == null) {
            throw new IllegalArgumentException("unknown feature " + feature);
        }
        change(feature, new Levels(old.min, old.max, level));
    }

    /**
     * Reads the levels an operator finalized from {@code file} (when it exists) and keeps later
     * changes there. Call once, at start, after the supported ranges are set.
     *
     * <p>A new data directory ({@code newDataDir}, no file yet) starts at the levels Kafka 4.x
     * formats a new cluster with where Brook implements them: {@code transaction.version} 2,
     * written to the file at once so that later defaults never change it. A data directory that
     * has served before keeps Brook's defaults above (level 0) until an operator changes them.
     *
     * @throws IllegalStateException when a stored level is not one this Brook supports
     */
    public synchronized void persistIn(Path file, boolean newDataDir) throws IOException {
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(file)) {
            p.load(new java.io.InputStreamReader(in, StandardCharsets.UTF_8));
        } catch (NoSuchFileException e) {
            this.file = file;
            if (newDataDir) {
                finalizeLevels(Map.of(TRANSACTION_VERSION, NEW_DATA_DIR_TRANSACTION_VERSION));
            }
            return;
        }
        Snapshot old = snapshot;
        Map<String, Levels> f = new LinkedHashMap<>(old.features);
        Map<String, Short> stored = new TreeMap<>();
        long epoch = old.epoch;
        for (String key : p.stringPropertyNames()) {
            String value = p.getProperty(key).trim();
            if (key.equals(EPOCH_KEY)) {
                epoch = Math.max(epoch, Long.parseLong(value));
                continue;
            }
            if (!key.startsWith(LEVEL_PREFIX)) {
                continue;
            }
            String feature = key.substring(LEVEL_PREFIX.length());
            short level = Short.parseShort(value);
            Levels l = f.get(feature);
            if (l == null || !supports(l, level)) {
                throw new IllegalStateException(file + " finalizes " + feature + " at level " + level
                        + ", which this Brook does not support (" + (l == null ? "unknown feature"
                        : "supported " + l.min + ".." + l.max) + ")");
            }
            f.put(feature, new Levels(l.min, l.max, level));
            stored.put(feature, level);
        }
        this.operatorLevels = Collections.unmodifiableMap(stored);
        this.file = file;
        snapshot = snapshot(f, epoch);
    }

    /**
     * Finalizes every feature of {@code updates} at its level (0 turns it off) as one change, one
     * epoch step (also when no level differs, as a Kafka controller appends the records anyway);
     * persisted first when {@link #persistIn(Path, boolean)} named a file. Every level must be supported:
     * callers validate (see the UpdateFeatures handler).
     */
    public synchronized void finalizeLevels(Map<String, Short> updates) throws IOException {
        Snapshot old = snapshot;
        Map<String, Levels> f = new LinkedHashMap<>(old.features);
        Map<String, Short> stored = new TreeMap<>(operatorLevels);
        for (Map.Entry<String, Short> e : updates.entrySet()) {
            Levels l = f.get(e.getKey());
            short level = e.getValue();
            if (l == null || !supports(l, level)) {
                throw new IllegalArgumentException("unsupported level " + level + " of " + e.getKey());
            }
            f.put(e.getKey(), new Levels(l.min, l.max, level));
            stored.put(e.getKey(), level);
        }
        long epoch = Math.max(old.epoch + 1, clock.millis());
        if (file != null) {
            // written by hand, not with Properties.store: its date comment sets up the JDK's time
            // zone names (CLDR locale data, ~60 classes) on a new data directory's first start,
            // and the feature names are known ones that need no escaping
            StringBuilder text = new StringBuilder("#Brook: feature levels finalized by operators\n");
            text.append(EPOCH_KEY).append('=').append(epoch).append('\n');
            stored.forEach((k, v) -> text.append(LEVEL_PREFIX).append(k).append('=').append(v).append('\n'));
            DurableFiles.writeAtomically(file, text.toString().getBytes(StandardCharsets.UTF_8));
        }
        this.operatorLevels = Collections.unmodifiableMap(stored);
        snapshot = snapshot(f, epoch);
        listeners.forEach(Runnable::run);
    }

    /** Runs {@code listener} now and after every change {@link #finalizeLevels} makes (on its caller's thread). */
    public synchronized void onFinalized(Runnable listener) {
        listeners.add(listener);
        listener.run();
    }

    /** Whether {@code level} is within the supported range of {@code l} (0, off, only when the range holds it). */
    private static boolean supports(Levels l, short level) {
        return level >= l.min && level <= l.max;
    }

    private void change(String feature, Levels levels) {
        Snapshot old = snapshot;
        Map<String, Levels> f = new LinkedHashMap<>(old.features);
        f.put(feature, levels);
        snapshot = snapshot(f, Math.max(old.epoch + 1, clock.millis()));
    }

    /**
     * Sets the features section of {@code response}, an answer at ApiVersions {@code version}
     * (the section exists from v3; older versions drop it when writing).
     */
    void addTo(ApiVersionsResponse response, short version) {
        Snapshot s = snapshot;
        response.supportedFeatures(version >= LEVEL_0_MIN_VERSION ? s.supportedAll : s.supportedWithoutLevel0)
                .finalizedFeatures(s.finalized).finalizedFeaturesEpoch(s.epoch);
    }

    private static Snapshot snapshot(Map<String, Levels> features, long epoch) {
        List<SupportedFeatureKey> all = new ArrayList<>();
        List<SupportedFeatureKey> without0 = new ArrayList<>();
        List<FinalizedFeatureKey> finalized = new ArrayList<>();
        for (Map.Entry<String, Levels> e : features.entrySet()) {
            Levels l = e.getValue();
            SupportedFeatureKey key = new SupportedFeatureKey().name(e.getKey()).minVersion(l.min).maxVersion(l.max);
            all.add(key);
            if (l.min != 0) {
                without0.add(key);
            }
            if (l.level != 0) {
                finalized.add(new FinalizedFeatureKey().name(e.getKey()).minVersionLevel(l.level).maxVersionLevel(l.level));
            }
        }
        return new Snapshot(Collections.unmodifiableMap(features), epoch, Collections.unmodifiableList(all),
                Collections.unmodifiableList(without0), Collections.unmodifiableList(finalized));
    }
}
