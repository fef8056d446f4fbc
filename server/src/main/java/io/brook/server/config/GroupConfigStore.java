package io.brook.server.config;

import io.brook.coordinator.group.GroupConfigOverrides;
import io.brook.storage.file.DurableFiles;
import io.brook.storage.file.LineFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * The settings operators gave single groups ({@code kafka-configs.sh --entity-type groups},
 * Kafka's group configs): today {@code consumer.session.timeout.ms} and
 * {@code consumer.heartbeat.interval.ms}, which the group coordinator reads at every heartbeat of
 * a KIP-848 consumer group ({@link GroupConfigOverrides}).
 *
 * <p>On a single node they are kept in the metadata directory (file {@value #FILE_NAME}, one line
 * per group and setting: {@code <base64 group> <name> <value>}), replaced with
 * {@link DurableFiles#writeAtomically} before a change is answered; in cluster mode they are
 * records of the cluster's metadata log ({@link GroupConfigLog}) and this node's are the ones
 * {@link #replaceAll} gives. Reads are lock-free (an immutable snapshot); changes are serialized.
 */
public final class GroupConfigStore implements GroupConfigOverrides {

    static final String FILE_NAME = "group-configs";
    private static final String HEADER = "# group configs: group (base64) name value";

    private final Path file;
    private volatile Map<String, Map<String, String>> groups;
    /** In cluster mode, the metadata log that keeps the settings (once the node joined it); null on a single node. */
    private volatile CompletableFuture<GroupConfigLog> log;

    private GroupConfigStore(Path file, Map<String, Map<String, String>> groups) {
        this.file = file;
        this.groups = freeze(groups);
    }

    /** The settings kept in {@code metaDir} (none when the file does not exist yet; null: in memory only). */
    public static GroupConfigStore open(Path metaDir) throws IOException {
        Map<String, Map<String, String>> groups = new TreeMap<>();
        Path f = metaDir == null ? null : metaDir.resolve(FILE_NAME);
        if (f != null) {
            LineFiles.read(f, fields -> {
                if (fields.length != 3) {
                    throw new IllegalArgumentException("not a group config");
                }
                String group = new String(Base64.getDecoder().decode(fields[0]), StandardCharsets.UTF_8);
                groups.computeIfAbsent(group, g -> new TreeMap<>()).put(fields[1], fields[2]);
            });
        }
        return new GroupConfigStore(f, groups);
    }

    @Override
    public Map<String, String> of(String groupId) {
        return groups.getOrDefault(groupId, Map.of());
    }

    /** Every group with settings of its own, and those settings. */
    public Map<String, Map<String, String>> all() {
        return groups;
    }

    /** Replaces group {@code group}'s settings with {@code settings} (empty: none), durably, then makes them visible. */
    public CompletableFuture<Void> replace(String group, Map<String, String> settings) {
        CompletableFuture<GroupConfigLog> l = log;
        if (l != null) {
            return l.thenCompose(m -> m.changeGroupConfigs(group, settings));
        }
        try {
            replaceHere(group, settings);
            return CompletableFuture.completedFuture(null);
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private synchronized void replaceHere(String group, Map<String, String> settings) throws IOException {
        Map<String, Map<String, String>> next = new TreeMap<>(groups);
        if (settings.isEmpty()) {
            next.remove(group);
        } else {
            next.put(group, new TreeMap<>(settings));
        }
        if (file != null) {
            DurableFiles.writeAtomically(file, encode(next));
        }
        groups = freeze(next);
    }

    /**
     * A cluster node's settings: in memory, given by the metadata image ({@link #replaceAll});
     * changes wait until {@link #keptIn} names the metadata log that keeps them.
     */
    public static GroupConfigStore forCluster() {
        GroupConfigStore store = new GroupConfigStore(null, Map.of());
        store.log = new CompletableFuture<>();
        return store;
    }

    /** Cluster mode: from now on {@code log} keeps the settings (the changes made until now go to it). */
    public void keptIn(GroupConfigLog log) {
        CompletableFuture<GroupConfigLog> pending = this.log;
        if (pending == null) {
            throw new IllegalStateException("not a cluster node's store");
        }
        pending.complete(log);
    }

    /** Cluster mode: the settings this node's metadata image holds now. */
    public void replaceAll(Map<String, Map<String, String>> all) {
        groups = freeze(all);
    }

    private static byte[] encode(Map<String, Map<String, String>> groups) {
        StringBuilder out = new StringBuilder(HEADER).append('\n');
        Base64.Encoder b64 = Base64.getEncoder();
        groups.forEach((group, settings) -> settings.forEach((name, value) -> out
                .append(b64.encodeToString(group.getBytes(StandardCharsets.UTF_8))).append(' ').append(name)
                .append(' ').append(value).append('\n')));
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static Map<String, Map<String, String>> freeze(Map<String, Map<String, String>> groups) {
        Map<String, Map<String, String>> out = new TreeMap<>();
        groups.forEach((g, m) -> {
            if (!m.isEmpty()) {
                out.put(g, Collections.unmodifiableMap(new TreeMap<>(m)));
            }
        });
        return Collections.unmodifiableMap(out);
    }
}
