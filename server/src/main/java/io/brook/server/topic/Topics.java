package io.brook.server.topic;

import io.brook.storage.FileDescriptors;
import io.brook.storage.Log;
import io.brook.wire.protocol.LogSafe;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's topics: the registry (what exists) kept in step with the partition logs (what is
 * stored). Every API that creates, deletes, grows or reconfigures topics goes through here so
 * the two never disagree: logs are created before the registry records the topic, and the
 * registry forgets a topic before its logs are deleted, so a crash in between leaves at worst an
 * orphan directory, never a registered topic without logs. Changes are serialised; lookups are
 * lock-free.
 */
public final class Topics {

    private static final Logger LOG = LoggerFactory.getLogger(Topics.class);

    /** Upper bound on partitions per topic: each one is a directory with open files. */
    public static final int MAX_PARTITIONS = 10_000;

    /**
     * Upper bound on the partitions one request (CreateTopics, or the topics a Metadata request
     * creates) may create: Kafka 4.0's controller refuses an operation of more than 10,000 records
     * (KAFKA-17870), so no client relies on more, and it bounds the work of one request.
     */
    public static final int MAX_PARTITIONS_PER_REQUEST = 10_000;
    private static final long NO_FILES_WARN_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final TopicRegistry registry;
    private final TopicConfigResolver topicConfigs;
    private final PartitionLogs logs;
    private volatile Runnable partitionsChanged = () -> { };
    /** When a refusal for want of file descriptors was last logged (under this object's lock). */
    private long lastNoFilesWarn;

    public Topics(TopicRegistry registry, TopicConfigResolver topicConfigs, PartitionLogs logs) {
        this.registry = registry;
        this.topicConfigs = topicConfigs;
        this.logs = logs;
    }

    /**
     * Start-up: opens the logs of every registered topic, creating those missing. The logs the
     * registry does not know were deleted unopened when the partition logs were opened (see
     * {@link #registered}), so a topic created again under the same name starts empty.
     */
    public void openAll() throws IOException {
        openAll(false);
    }

    /**
     * As {@link #openAll()}; with {@code existingOnly} (cluster mode) the logs of registered topics
     * are not created where none exist: which partitions this node hosts is the metadata image's to
     * say, and {@link #mirror} creates them.
     */
    public void openAll(boolean existingOnly) throws IOException {
        for (Topic t : registry.all()) {
            if (!existingOnly) {
                logs.open(t.name(), 0, t.partitions(), topicConfigs.effective(t.configs()));
            }
        }
    }

    /**
     * Whether a partition directory found at start-up belongs: a partition of a registered topic,
     * or of an internal topic ({@code __...}, which belong to the coordinators). Any other was
     * left by a crash between creating a topic's logs and recording it, or between forgetting a
     * deleted topic and removing its logs, or by a creation that failed midway.
     */
    static boolean registered(TopicRegistry registry, String topic, int partition) {
        Topic t = registry.get(topic);
        return topic.startsWith("__") || (t != null && partition < t.partitions());
    }

    /**
     * Cluster mode: makes the local topic what the metadata image says (docs/cluster.md, section
     * 6): its id, partition count and config overrides recorded, a log for each partition in
     * {@code hosted} (those whose replicas hold this node) and none for the others. A local topic
     * of that name with another id (deleted and created again elsewhere) is deleted first, logs
     * included. Logs are created before the registry records the topic, as everywhere here.
     */
    public synchronized void mirror(String name, UUID id, int partitions, Map<String, String> configs,
            java.util.Set<Integer> hosted) {
        Topic t = registry.get(name);
        if (t != null && !t.id().equals(id)) {
            delete(name);
            t = null;
        }
        boolean changed = false;
        try {
            for (int p : hosted) {
                if (logs.log(name, p) == null) {
                    logs.open(name, p, p + 1, topicConfigs.effective(configs));
                    changed = true;
                }
            }
            for (int p = 0; p < Math.max(partitions, t == null ? 0 : t.partitions()); p++) {
                if (!hosted.contains(p) && logs.log(name, p) != null) {
                    logs.deletePartition(name, p);
                    changed = true;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot mirror the logs of topic " + name, e);
        }
        if (t == null || t.partitions() != partitions || !t.configs().equals(configs)) {
            registry.put(new Topic(name, id, partitions, configs));
            if (t != null && !t.configs().equals(configs)) {
                logs.reconfigure(name, topicConfigs.effective(configs));
            }
        }
        if (changed) {
            partitionsChanged.run();
        }
    }

    /**
     * Runs {@code r} after every change of the set of partition logs (creation, growth, deletion),
     * on the thread that made it and possibly under this object's lock: keep it short.
     */
    public void onPartitionsChanged(Runnable r) {
        this.partitionsChanged = r;
    }

    /** Every partition log, the internal topics' included. */
    public Collection<Log> allLogs() {
        return logs.all();
    }

    /** How the topics' configs resolve, validate and describe. */
    public TopicConfigResolver configs() {
        return topicConfigs;
    }

    public Topic get(String name) {
        return registry.get(name);
    }

    public Topic get(UUID id) {
        return registry.get(id);
    }

    public List<Topic> all() {
        return registry.all();
    }

    /** The existing topic whose name differs from {@code name} only in '.' against '_', or null. */
    public String collidingTopic(String name) {
        return registry.collidingTopic(name);
    }

    /** The log of a partition of an existing topic, or null. */
    public Log log(String topic, int partition) {
        return logs.log(topic, partition);
    }

    /** A topic to create: name, partition count and config overrides, all validated by the caller. */
    public record NewTopic(String name, int partitions, Map<String, String> configs) {
    }

    /**
     * What {@link #createAll} did with one name: {@code topic} is the topic created now
     * ({@code created}) or found, null when it was not created; then {@code error} says why,
     * {@code collision} whether it was because the name collides with another topic's, and
     * {@code noFiles} whether because its logs would eat into the file descriptors the broker
     * keeps free ({@link io.brook.storage.FileDescriptors}).
     */
    public record Creation(Topic topic, boolean created, String error, boolean collision, boolean noFiles) {
        Creation(Topic topic, boolean created, String error, boolean collision) {
            this(topic, created, error, collision, false);
        }
    }

    /** A growth refused because its logs would eat into the file descriptors the broker keeps free. */
    public static final class NoFilesException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        NoFilesException(String message) {
            super(message);
        }
    }

    /**
     * Creates the topics of one request (CreateTopics, or Metadata's auto-creation) together: their
     * logs one by one, then one write and fsync of the registry for all of them, so a request
     * naming many topics costs one registry rewrite rather than one per topic. A name that exists
     * already yields its topic, not created; a name that collides with another topic (or with an
     * earlier name of the same batch) or whose logs cannot be created yields an error. The caller
     * has validated names, counts and configs, and listed each name once.
     *
     * @throws UncheckedIOException when the registry cannot be written: then none of the batch
     *     is registered (their logs are removed at the next start)
     */
    public synchronized Map<String, Creation> createAll(List<NewTopic> wanted) {
        Map<String, Creation> out = new LinkedHashMap<>();
        Map<String, String> batchKeys = new HashMap<>();
        List<Topic> toRegister = new ArrayList<>();
        FileDescriptors.Budget files = null; // read when the first topic is to be created
        for (NewTopic w : wanted) {
            Topic existing = registry.get(w.name());
            if (existing != null) {
                out.put(w.name(), new Creation(existing, false, null, false));
                continue;
            }
            String other = registry.collidingTopic(w.name());
            if (other == null) {
                other = batchKeys.putIfAbsent(TopicRegistry.collisionKey(w.name()), w.name());
            }
            if (other != null) {
                out.put(w.name(), new Creation(null, false,
                        "Topic '" + w.name() + "' collides with existing topic: " + other, true));
                continue;
            }
            if (files == null) {
                files = logs.fileBudget();
            }
            String noRoom = files.take(w.partitions());
            if (noRoom != null) {
                String why = "Cannot create topic " + w.name() + " with " + w.partitions() + " partitions: " + noRoom;
                warnNoFiles(why);
                out.put(w.name(), new Creation(null, false, why, false, true));
                continue;
            }
            try {
                logs.open(w.name(), 0, w.partitions(), topicConfigs.effective(w.configs()));
            } catch (IOException | RuntimeException e) {
                LOG.error("Cannot create the logs of topic {}", LogSafe.escape(w.name()), e);
                out.put(w.name(), new Creation(null, false, "Cannot create the logs of topic " + w.name(), false));
                continue;
            }
            toRegister.add(new Topic(w.name(), null, w.partitions(), w.configs()));
        }
        for (Topic t : registry.createAll(toRegister)) {
            out.put(t.name(), new Creation(t, true, null, false));
        }
        partitionsChanged.run();
        return out;
    }

    /**
     * Logs a refusal for want of file descriptors, at most one every {@link #NO_FILES_WARN_NANOS}
     * (a producer asking for an auto-created topic asks again every few hundred milliseconds).
     */
    private void warnNoFiles(String why) {
        long now = System.nanoTime();
        if (lastNoFilesWarn == 0 || now - lastNoFilesWarn >= NO_FILES_WARN_NANOS) {
            lastNoFilesWarn = now;
            LOG.warn("{}", LogSafe.escape(why));
        }
    }

    /**
     * Checks a topic to create through the embedded API: a legal name and 1 to {@link
     * #MAX_PARTITIONS} partitions, else an {@link IllegalArgumentException} saying why.
     */
    public static void checkNewTopic(String name, int partitions) {
        String invalid = TopicNames.invalidNameReason(name);
        if (invalid != null) {
            throw new IllegalArgumentException(invalid);
        }
        if (partitions < 1 || partitions > MAX_PARTITIONS) {
            throw new IllegalArgumentException("partitions must be between 1 and " + MAX_PARTITIONS + ": " + partitions);
        }
    }

    /** How many times the topic registry was written since start-up (for tests and metrics). */
    public long registryWrites() {
        return registry.writes();
    }

    /**
     * Creates the topic; null when it exists already. The caller has validated name, counts and
     * configs.
     *
     * @throws IllegalArgumentException when the name collides with another topic's (see
     *     {@link #collidingTopic}); nothing is created then
     */
    public synchronized Topic create(String name, int partitions, Map<String, String> configs) {
        if (registry.get(name) != null) {
            return null;
        }
        String other = registry.collidingTopic(name);
        if (other != null) {
            throw new IllegalArgumentException("Topic '" + name + "' collides with existing topic: " + other);
        }
        try {
            logs.open(name, 0, partitions, topicConfigs.effective(configs));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create the logs of topic " + name, e);
        }
        Topic created = registry.create(name, partitions, configs);
        partitionsChanged.run();
        return created;
    }

    public synchronized boolean delete(String name) {
        Topic t = registry.get(name);
        if (t == null || !registry.delete(name)) {
            return false;
        }
        try {
            logs.delete(name, t.partitions());
        } catch (IOException e) {
            throw new UncheckedIOException("Topic " + name + " is deleted but its logs could not be removed", e);
        } finally {
            partitionsChanged.run();
        }
        return true;
    }

    /**
     * Grows the topic to {@code count} partitions (the caller checked that this is a growth).
     *
     * @throws NoFilesException when the new logs would eat into the file descriptors the broker
     *     keeps free; nothing is created then
     */
    public synchronized Topic addPartitions(String name, int count) {
        Topic t = registry.get(name);
        if (t == null || count <= t.partitions()) {
            throw new IllegalArgumentException("cannot grow " + name + " to " + count + " partitions");
        }
        String noRoom = logs.fileBudget().take(count - t.partitions());
        if (noRoom != null) {
            String why = "Cannot grow topic " + name + " to " + count + " partitions: " + noRoom;
            warnNoFiles(why);
            throw new NoFilesException(why);
        }
        try {
            logs.open(name, t.partitions(), count, topicConfigs.effective(t.configs()));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create new partitions of topic " + name, e);
        }
        Topic grown = registry.update(t.withPartitions(count));
        partitionsChanged.run();
        return grown;
    }

    /**
     * Applies the broker-wide topic defaults again to every topic's logs, after a dynamic broker
     * setting changed them ({@link TopicConfigResolver#reconfigure}); topics keep their overrides.
     */
    public synchronized void reconfigureAll() {
        for (Topic t : registry.all()) {
            logs.reconfigure(t.name(), topicConfigs.effective(t.configs()));
        }
    }

    /** Replaces the topic's config overrides (already validated); null when the topic is gone. */
    public synchronized Topic setConfigs(String name, Map<String, String> overrides) {
        Topic t = registry.get(name);
        if (t == null) {
            return null;
        }
        Topic updated = registry.update(t.withConfigs(overrides));
        logs.reconfigure(name, topicConfigs.effective(overrides));
        return updated;
    }
}
