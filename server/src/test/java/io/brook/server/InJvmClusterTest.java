package io.brook.server;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a test of an {@link InJvmCluster} shares: the directory its nodes keep their data in, the
 * cluster the test starts there, and closing that cluster after each test.
 */
abstract class InJvmClusterTest {

    @TempDir
    Path dirs;

    /** The cluster the test started, if any; closed after each test. */
    InJvmCluster cluster;

    @AfterEach
    void stopCluster() {
        if (cluster != null) {
            cluster.close();
            cluster = null;
        }
    }
}
