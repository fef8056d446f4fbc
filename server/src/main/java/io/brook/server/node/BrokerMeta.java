package io.brook.server.node;

import io.brook.storage.file.DurableFiles;
import java.io.IOException;
import java.io.StringReader;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Base64;
import java.util.Properties;
import java.util.UUID;

/**
 * The identity of a data directory, kept in {@code <data-dir>/meta/}:
 *
 * <pre>
 * meta/.lock             held (OS file lock) while a broker uses the directory
 * meta/meta.properties   version=1, cluster.id=&lt;22-char URL-safe base64 UUID&gt;, node.id=&lt;id&gt;,
 *                        directory.id=&lt;22-char URL-safe base64 UUID&gt;
 * </pre>
 *
 * The cluster id is created once and then never changes; a directory written by another node id
 * is refused, as Kafka does, because its logs belong to that node. The directory id (KIP-853, in
 * Kafka's format) names the directory for good: {@code kafka-metadata-quorum.sh add-controller}
 * reads it from this file (through {@code metadata.log.dir=<data-dir>/meta}, where the metadata
 * log lives too); a file written before directory ids existed gets one on its next open.
 */
public final class BrokerMeta implements AutoCloseable {

    private static final String META_DIR = "meta";
    private static final String LOCK_FILE = ".lock";
    private static final String META_PROPERTIES = "meta.properties";
    private static final String CLUSTER_ID = "cluster.id";
    private static final String DIRECTORY_ID = "directory.id";

    private final Path metaDir;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final String clusterId;
    private final String directoryId;
    private final boolean created;

    private BrokerMeta(Path metaDir, FileChannel lockChannel, FileLock lock, String clusterId, String directoryId,
                       boolean created) {
        this.created = created;
        this.directoryId = directoryId;
        this.metaDir = metaDir;
        this.lockChannel = lockChannel;
        this.lock = lock;
        this.clusterId = clusterId;
    }

    /** Locks the data directory (creating it if needed) and reads or creates its identity. */
    public static BrokerMeta open(Path dataDir, int nodeId) throws IOException {
        return open(dataDir, nodeId, null);
    }

    /**
     * As {@link #open(Path, int)}, with the cluster id of cluster mode's {@code cluster.id}
     * ({@code configuredClusterId}, null on a single node): a new directory takes it, and a
     * directory of another cluster is refused.
     */
    public static BrokerMeta open(Path dataDir, int nodeId, String configuredClusterId) throws IOException {
        Path metaDir = dataDir.resolve(META_DIR);
        Files.createDirectories(metaDir);
        Path lockPath = metaDir.resolve(LOCK_FILE);
        FileChannel ch = FileChannel.open(lockPath, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock;
        try {
            lock = ch.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null;
        }
        if (lock == null) {
            ch.close();
            throw new IllegalStateException("Data directory " + dataDir.toAbsolutePath()
                    + " is in use by another Brook broker (lock held on " + lockPath.toAbsolutePath() + ")");
        }
        try {
            boolean created = !Files.exists(metaDir.resolve(META_PROPERTIES));
            Properties identity = readOrCreate(metaDir.resolve(META_PROPERTIES), nodeId, dataDir, configuredClusterId);
            return new BrokerMeta(metaDir, ch, lock, identity.getProperty(CLUSTER_ID), identity.getProperty(DIRECTORY_ID),
                    created);
        } catch (IOException | RuntimeException e) {
            lock.release();
            ch.close();
            throw e;
        }
    }

    /** The directory's identity: its cluster id and directory id, read, completed or created. */
    private static Properties readOrCreate(Path file, int nodeId, Path dataDir, String configured) throws IOException {
        if (Files.exists(file)) {
            Properties p = new Properties();
            p.load(new StringReader(Files.readString(file, StandardCharsets.UTF_8)));
            String clusterId = p.getProperty(CLUSTER_ID);
            String storedNode = p.getProperty("node.id");
            if (clusterId == null || clusterId.isBlank()) {
                throw new IllegalStateException(file.toAbsolutePath() + " has no cluster.id");
            }
            if (storedNode != null && !storedNode.trim().equals(Integer.toString(nodeId))) {
                throw new IllegalStateException("Data directory " + dataDir.toAbsolutePath() + " belongs to node.id "
                        + storedNode.trim() + ", but this broker is configured with node.id " + nodeId);
            }
            if (configured != null && !configured.equals(clusterId.trim())) {
                throw new IllegalStateException("Data directory " + dataDir.toAbsolutePath() + " belongs to cluster "
                        + clusterId.trim() + ", but this node is configured with cluster.id " + configured);
            }
            String directoryId = p.getProperty(DIRECTORY_ID);
            if (directoryId == null || directoryId.isBlank()) {
                directoryId = newDirectoryId();
                write(file, clusterId.trim(), nodeId, directoryId);
            } else if (!isUuid(directoryId.trim())) {
                throw new IllegalStateException(file.toAbsolutePath() + " has a directory.id that is not a Kafka UUID: "
                        + directoryId.trim());
            }
            return identity(clusterId.trim(), directoryId.trim());
        }
        String clusterId = configured != null ? configured : newClusterId();
        String directoryId = newDirectoryId();
        write(file, clusterId, nodeId, directoryId);
        return identity(clusterId, directoryId);
    }

    private static void write(Path file, String clusterId, int nodeId, String directoryId) throws IOException {
        String content = "# Identity of this data directory; do not edit.\nversion=1\ncluster.id=" + clusterId
                + "\nnode.id=" + nodeId + "\n" + DIRECTORY_ID + "=" + directoryId + "\n";
        DurableFiles.writeAtomically(file, content.getBytes(StandardCharsets.UTF_8));
    }

    private static Properties identity(String clusterId, String directoryId) {
        Properties p = new Properties();
        p.setProperty(CLUSTER_ID, clusterId);
        p.setProperty(DIRECTORY_ID, directoryId);
        return p;
    }

    /**
     * A new directory id in Kafka's format. Kafka reserves the ids whose first 8 bytes are zero
     * (ZERO, ONE, ...) and never gives out one whose text starts with '-' (it would read as a
     * command-line option); neither is drawn here.
     */
    static String newDirectoryId() {
        while (true) {
            UUID u = RandomIds.uuid();
            String text = base64(u);
            if (u.getMostSignificantBits() != 0 && !text.startsWith("-")) {
                return text;
            }
        }
    }

    private static boolean isUuid(String text) {
        try {
            return text.length() == 22 && Base64.getUrlDecoder().decode(text).length == 16;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** Kafka's format: a random UUID as 22 characters of URL-safe base64 without padding. */
    static String newClusterId() {
        return base64(RandomIds.uuid());
    }

    private static String base64(UUID u) {
        ByteBuffer b = ByteBuffer.allocate(16).putLong(u.getMostSignificantBits()).putLong(u.getLeastSignificantBits());
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b.array());
    }

    public String clusterId() {
        return clusterId;
    }

    /** This directory's id (KIP-853's {@code directory.id}, Kafka's 22-character form). */
    public String directoryId() {
        return directoryId;
    }

    /**
     * The directory id recorded in {@code metaDir}'s meta.properties (the {@link #metaDir()} of
     * an open directory), as a UUID; null when there is none.
     */
    public static UUID directoryIdIn(Path metaDir) throws IOException {
        Path file = metaDir.resolve(META_PROPERTIES);
        if (!Files.exists(file)) {
            return null;
        }
        Properties p = new Properties();
        p.load(new StringReader(Files.readString(file, StandardCharsets.UTF_8)));
        String text = p.getProperty(DIRECTORY_ID);
        if (text == null || !isUuid(text.trim())) {
            return null;
        }
        ByteBuffer b = ByteBuffer.wrap(Base64.getUrlDecoder().decode(text.trim()));
        return new UUID(b.getLong(), b.getLong());
    }

    /** {@code id} as Kafka writes a Uuid (22 characters of URL-safe base64), for messages. */
    public static String kafkaUuid(UUID id) {
        return base64(id);
    }

    /** Whether this open gave the data directory its identity: a new data directory, never served before. */
    public boolean isNew() {
        return created;
    }

    public Path metaDir() {
        return metaDir;
    }

    @Override
    public void close() throws IOException {
        try {
            lock.release();
        } finally {
            lockChannel.close();
        }
    }
}
