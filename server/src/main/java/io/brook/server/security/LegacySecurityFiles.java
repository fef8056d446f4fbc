package io.brook.server.security;

import io.brook.server.security.quota.ClientQuotaStore;
import io.brook.server.security.quota.QuotaEntity;
import io.brook.server.security.quota.QuotaKey;
import io.brook.storage.file.DurableFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ACLs, SCRAM credentials and client quotas that a node in cluster mode kept in its own
 * metadata directory before the cluster's metadata log kept them (the files a single node still
 * uses). A node that finds them at start-up writes them to the log once it is registered and then
 * renames each file with the suffix {@value #WRITTEN_SUFFIX}, so that they are not written again
 * and stay for the operator to look at. A file that cannot be read is reported and left alone: it
 * never keeps the node from starting.
 */
public final class LegacySecurityFiles {

    private static final Logger LOG = LoggerFactory.getLogger(LegacySecurityFiles.class);
    static final String WRITTEN_SUFFIX = ".in-cluster-metadata";

    private final List<Path> files;
    private final List<Acl> acls;
    private final List<ScramCredentials.Stored> credentials;
    private final Map<QuotaEntity, Map<QuotaKey, Double>> quotas;

    private LegacySecurityFiles(List<Path> files, List<Acl> acls, List<ScramCredentials.Stored> credentials,
            Map<QuotaEntity, Map<QuotaKey, Double>> quotas) {
        this.files = files;
        this.acls = acls;
        this.credentials = credentials;
        this.quotas = quotas;
    }

    /** The settings kept in {@code metaDir}'s files (none when there are none, or when they don't read). */
    public static LegacySecurityFiles in(Path metaDir) {
        List<Path> files = List.of(metaDir.resolve(Authorizer.FILE_NAME), metaDir.resolve(ScramCredentials.FILE_NAME),
                metaDir.resolve(ClientQuotaStore.FILE_NAME));
        List<Path> present = files.stream().filter(Files::exists).toList();
        if (present.isEmpty()) {
            return new LegacySecurityFiles(List.of(), List.of(), List.of(), Map.of());
        }
        try {
            return new LegacySecurityFiles(present, Authorizer.storedIn(metaDir),
                    ScramCredentials.open(metaDir).stored(), ClientQuotaStore.open(metaDir).all());
        } catch (IOException | RuntimeException e) {
            LOG.error("Cluster mode: the ACLs, SCRAM credentials and client quotas this node kept in {} do not read"
                    + " ({}); they are left there and not written to the cluster's metadata", present, e.getMessage());
            return new LegacySecurityFiles(List.of(), List.of(), List.of(), Map.of());
        }
    }

    public List<Acl> acls() {
        return acls;
    }

    public List<ScramCredentials.Stored> credentials() {
        return credentials;
    }

    public Map<QuotaEntity, Map<QuotaKey, Double>> quotas() {
        return quotas;
    }

    /** The settings are in the cluster's metadata now: the files are renamed out of the way. */
    public void markWritten() {
        for (Path f : files) {
            try {
                DurableFiles.moveAtomically(f, f.resolveSibling(f.getFileName() + WRITTEN_SUFFIX));
                LOG.info("Cluster mode: the settings of {} are in the cluster's metadata now; the file is kept as {}{}",
                        f, f.getFileName(), WRITTEN_SUFFIX);
            } catch (IOException e) {
                LOG.warn("Cluster mode: could not rename {} once its settings were written to the cluster's metadata"
                        + " (they will be written again at the next start)", f, e);
            }
        }
    }
}
