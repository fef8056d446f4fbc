package io.brook.server.topic;

import io.brook.storage.file.DurableFiles;
import io.brook.wire.protocol.LogSafe;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.zip.CRC32C;

/**
 * Every topic of this broker, persisted in {@code <data-dir>/meta/topics}.
 *
 * <p>Concurrency: reads ({@link #get}, {@link #all}) are lock-free on concurrent maps and see
 * immutable {@link Topic}s; changes are serialised by the registry's monitor and are durable
 * (file replaced atomically and fsynced) before they become visible.
 *
 * <p>File layout (big-endian), replaced as a whole on every change (creating the topics of one
 * request, {@link #createAll}, is one change):
 * <pre>
 *  0  magic   int32  'BRKT'
 *  4  version int16  1
 *  6  count   int32
 * 10  topics  count x { name utf, id msb int64, id lsb int64, partitions int32,
 *                        configCount int32, configCount x { key utf, value utf } }
 *  .. crc     int32  CRC-32C of every byte before it
 * </pre>
 * ({@code utf} is {@link DataOutputStream#writeUTF}: uint16 length then modified UTF-8.)
 */
public final class TopicRegistry {

    static final String FILE = "topics";
    private static final int MAGIC = 0x42524b54; // "BRKT"
    private static final short VERSION = 1;
    /** A config value must fit writeUTF's 64 KiB; Kafka's values are far shorter. */
    static final int MAX_CONFIG_VALUE_CHARS = 16_384;

    private final Path file;
    private final Supplier<UUID> newIds;
    private final Map<String, Topic> byName = new ConcurrentHashMap<>();
    private final Map<UUID, Topic> byId = new ConcurrentHashMap<>();
    /** Each topic's name under {@link #collisionKey} (Kafka's rule: '.' and '_' count as the same). */
    private final Map<String, String> byCollisionKey = new ConcurrentHashMap<>();
    /** Guarded by this registry's monitor. */
    private long writes;

    private TopicRegistry(Path file, Supplier<UUID> newIds) {
        this.file = file;
        this.newIds = newIds;
    }

    /** Reads the registry in {@code metaDir}; new topics get their ids (random UUIDs) from {@code newIds}. */
    public static TopicRegistry open(Path metaDir, Supplier<UUID> newIds) throws IOException {
        TopicRegistry r = new TopicRegistry(metaDir.resolve(FILE), newIds);
        if (Files.exists(r.file)) {
            for (Topic t : decode(Files.readAllBytes(r.file), r.file)) {
                r.byName.put(t.name(), t);
                r.byId.put(t.id(), t);
                r.byCollisionKey.put(collisionKey(t.name()), t.name());
            }
        }
        return r;
    }

    Topic get(String name) {
        return name == null ? null : byName.get(name);
    }

    Topic get(UUID id) {
        return byId.get(id);
    }

    /**
     * The existing topic whose name differs from {@code name} only in '.' against '_', or null.
     * Metric names replace '.' by '_', so Kafka refuses such a pair and so does Brook.
     */
    String collidingTopic(String name) {
        String other = byCollisionKey.get(collisionKey(name));
        return other == null || other.equals(name) ? null : other;
    }

    static String collisionKey(String name) {
        return name.replace('.', '_');
    }

    /** All topics, sorted by name. */
    List<Topic> all() {
        List<Topic> list = new ArrayList<>(byName.values());
        list.sort((a, b) -> a.name().compareTo(b.name()));
        return list;
    }

    /**
     * Creates the topic, or returns null when it exists already. Durable when it returns.
     *
     * @throws IllegalArgumentException when the name collides with another topic's
     */
    synchronized Topic create(String name, int partitions, Map<String, String> configs) {
        if (byName.containsKey(name)) {
            return null;
        }
        String other = collidingTopic(name);
        if (other != null) {
            throw new IllegalArgumentException("Topic '" + name + "' collides with existing topic: " + other);
        }
        return createAll(List.of(new Topic(name, null, partitions, configs))).get(0);
    }

    /**
     * Creates these topics (ids are assigned here; names neither registered nor colliding, checked
     * by the caller under this registry's monitor) with one write of the file: the cost of a batch
     * is one rewrite and one fsync, not one per topic. Durable when it returns; returns the topics
     * in the same order.
     */
    synchronized List<Topic> createAll(List<Topic> wanted) {
        Map<String, Topic> next = new HashMap<>(byName);
        Map<UUID, Topic> ids = new HashMap<>();
        List<Topic> created = new ArrayList<>(wanted.size());
        for (Topic w : wanted) {
            UUID id;
            do {
                id = newIds.get();
            } while (byId.containsKey(id) || ids.containsKey(id)
                    || id.getMostSignificantBits() == 0 && id.getLeastSignificantBits() == 0);
            Topic t = new Topic(w.name(), id, w.partitions(), w.configs());
            if (next.put(t.name(), t) != null) {
                throw new IllegalArgumentException("Topic '" + LogSafe.escape(t.name()) + "' exists or is named twice");
            }
            ids.put(id, t);
            created.add(t);
        }
        if (created.isEmpty()) {
            return created;
        }
        persist(next.values());
        for (Topic t : created) {
            byName.put(t.name(), t);
            byId.put(t.id(), t);
            byCollisionKey.put(collisionKey(t.name()), t.name());
        }
        return created;
    }

    /**
     * Records a topic with the id it already has (cluster mode: the metadata image gave it), in
     * place of any topic of that name; durable when it returns.
     */
    synchronized Topic put(Topic t) {
        Map<String, Topic> next = new HashMap<>(byName);
        Topic old = next.put(t.name(), t);
        persist(next.values());
        if (old != null) {
            byId.remove(old.id());
        }
        byName.put(t.name(), t);
        byId.put(t.id(), t);
        byCollisionKey.put(collisionKey(t.name()), t.name());
        return t;
    }

    /** How many times the file was written since the registry was opened (for tests and metrics). */
    synchronized long writes() {
        return writes;
    }

    /** Removes the topic; false when there was none. */
    public synchronized boolean delete(String name) {
        Topic t = byName.get(name);
        if (t == null) {
            return false;
        }
        Map<String, Topic> next = new HashMap<>(byName);
        next.remove(name);
        persist(next.values());
        byName.remove(name);
        byId.remove(t.id());
        byCollisionKey.remove(collisionKey(name), name);
        return true;
    }

    /** Replaces a topic's description (same name and id); returns the new value. */
    synchronized Topic update(Topic updated) {
        Topic old = byName.get(updated.name());
        if (old == null || !old.id().equals(updated.id())) {
            throw new IllegalArgumentException("no topic " + updated.name() + " with id " + updated.id());
        }
        Map<String, Topic> next = new HashMap<>(byName);
        next.put(updated.name(), updated);
        persist(next.values());
        byName.put(updated.name(), updated);
        byId.put(updated.id(), updated);
        return updated;
    }

    private void persist(Collection<Topic> topics) {
        writes++;
        try {
            DurableFiles.writeAtomically(file, encode(topics));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write topic registry " + file, e);
        }
    }

    static byte[] encode(Collection<Topic> topics) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeInt(MAGIC);
            out.writeShort(VERSION);
            out.writeInt(topics.size());
            for (Topic t : topics) {
                out.writeUTF(t.name());
                out.writeLong(t.id().getMostSignificantBits());
                out.writeLong(t.id().getLeastSignificantBits());
                out.writeInt(t.partitions());
                Map<String, String> sorted = new TreeMap<>(t.configs());
                out.writeInt(sorted.size());
                for (Map.Entry<String, String> e : sorted.entrySet()) {
                    out.writeUTF(e.getKey());
                    out.writeUTF(e.getValue());
                }
            }
            out.flush();
            CRC32C crc = new CRC32C();
            crc.update(bytes.toByteArray());
            out.writeInt((int) crc.getValue());
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<Topic> decode(byte[] content, Path source) throws IOException {
        if (content.length < 14) {
            throw new IOException(source + ": truncated topic registry (" + content.length + " bytes)");
        }
        CRC32C crc = new CRC32C();
        crc.update(content, 0, content.length - 4);
        int stored = ByteBuffer.wrap(content, content.length - 4, 4).getInt();
        if ((int) crc.getValue() != stored) {
            throw new IOException(source + ": topic registry checksum mismatch; the file is damaged");
        }
        DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(content, 0, content.length - 4));
        if (in.readInt() != MAGIC) {
            throw new IOException(source + ": not a topic registry file");
        }
        short version = in.readShort();
        if (version != VERSION) {
            throw new IOException(source + ": unsupported topic registry version " + version);
        }
        int count = in.readInt();
        // each topic takes at least 2 + 16 + 4 + 4 bytes
        if (count < 0 || (long) count * 26 > content.length) {
            throw new IOException(source + ": topic count " + count + " exceeds the file size");
        }
        List<Topic> topics = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            String name = in.readUTF();
            UUID id = new UUID(in.readLong(), in.readLong());
            int partitions = in.readInt();
            int configCount = in.readInt();
            if (partitions < 1 || configCount < 0 || (long) configCount * 4 > content.length) {
                throw new IOException(source + ": corrupt entry for topic " + name);
            }
            Map<String, String> configs = new LinkedHashMap<>();
            for (int c = 0; c < configCount; c++) {
                configs.put(in.readUTF(), in.readUTF());
            }
            topics.add(new Topic(name, id, partitions, Collections.unmodifiableMap(configs)));
        }
        return topics;
    }
}
