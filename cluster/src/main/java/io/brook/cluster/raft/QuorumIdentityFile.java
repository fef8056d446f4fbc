package io.brook.cluster.raft;

import java.io.IOException;
import java.io.StringReader;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Properties;

/**
 * {@code quorum.properties} in a node's metadata directory: the cluster id and node id the
 * directory was created for, written on the first start and checked on every later one, so that
 * a directory is never reused by another cluster or under another node id (the part of Kafka's
 * {@code meta.properties} check that concerns the quorum). A listener that took a free port for
 * the metadata log records it here too ({@code listener.port}) and takes it again on a restart:
 * Ratis' leader keeps a member's first address for as long as it runs. A voter records the
 * {@code controller.quorum.voters} it first started with ({@code voters}), so that a restart with
 * that same static list is accepted after the voters changed (docs/cluster.md, section 6b).
 */
final class QuorumIdentityFile {
    static final String FILE_NAME = "quorum.properties";

    private QuorumIdentityFile() {
    }

    /**
     * Checks the identity the directory was created for: false if it has none yet, true if it
     * matches, a {@link ClusterMembershipException} if it doesn't.
     */
    static boolean check(Path metadataDir, String clusterId, int nodeId) throws IOException {
        Path file = metadataDir.resolve(FILE_NAME);
        if (Files.exists(file)) {
            Properties p = new Properties();
            p.load(new StringReader(Files.readString(file, StandardCharsets.UTF_8)));
            String storedCluster = p.getProperty("cluster.id");
            String storedNode = p.getProperty("node.id");
            if (!clusterId.equals(storedCluster)) {
                throw new ClusterMembershipException("node " + nodeId + ": the metadata directory " + metadataDir
                        + " belongs to cluster " + storedCluster + ", not to the configured cluster " + clusterId);
            }
            if (!String.valueOf(nodeId).equals(storedNode)) {
                throw new ClusterMembershipException("node " + nodeId + ": the metadata directory " + metadataDir
                        + " belongs to node " + storedNode + " of cluster " + clusterId);
            }
            return true;
        }
        return false;
    }

    /** The free port a listener took on its first start, or 0 if it took none. */
    static int listenerPort(Path metadataDir) throws IOException {
        return Integer.parseInt(read(metadataDir).getProperty("listener.port", "0"));
    }

    /** The {@code controller.quorum.voters} this node first started with, or null if none was recorded. */
    static String initialVoters(Path metadataDir) throws IOException {
        return read(metadataDir).getProperty("voters");
    }

    private static Properties read(Path metadataDir) throws IOException {
        Path file = metadataDir.resolve(FILE_NAME);
        Properties p = new Properties();
        if (Files.exists(file)) {
            p.load(new StringReader(Files.readString(file, StandardCharsets.UTF_8)));
        }
        return p;
    }

    /** Records the directory's identity, durably (temp file, force, rename, directory force). */
    static void create(Path metadataDir, String clusterId, int nodeId) throws IOException {
        create(metadataDir, clusterId, nodeId, 0, null);
    }

    /**
     * Records the directory's identity and, unless 0, the free port this listener took, unless
     * null the voters it starts with.
     */
    static void create(Path metadataDir, String clusterId, int nodeId, int listenerPort, String voters)
            throws IOException {
        Files.createDirectories(metadataDir);
        String text = "cluster.id=" + clusterId + "\nnode.id=" + nodeId + "\n"
                + (listenerPort == 0 ? "" : "listener.port=" + listenerPort + "\n")
                + (voters == null ? "" : "voters=" + voters + "\n");
        Path tmp = metadataDir.resolve(FILE_NAME + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ch.write(StandardCharsets.UTF_8.encode(text));
            ch.force(true);
        }
        Files.move(tmp, metadataDir.resolve(FILE_NAME), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        try (FileChannel dir = FileChannel.open(metadataDir, StandardOpenOption.READ)) {
            dir.force(true);
        }
    }
}
