package io.brook.server.security;

import io.brook.server.security.quota.ClientQuotaStore;
import io.brook.server.security.quota.QuotaLog;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The cluster's metadata log as the keeper of the ACLs, the SCRAM credentials, the delegation
 * tokens and the client quotas (cluster mode, docs/cluster.md section 10a). A change goes to the controller as records
 * and its future completes once they are committed and applied on this node, after this node's
 * {@link Authorizer}, {@link ScramCredentials}, {@link DelegationTokens} and
 * {@link ClientQuotaStore} have been given the new state (read-your-writes). Client-quota changes are {@link QuotaLog#changeQuotas}. On a single node nothing implements this: the stores keep their
 * own files.
 *
 * <p>A future that fails with {@code io.brook.server.node.ClusterAdminException} carries the
 * Kafka error to answer (NOT_CONTROLLER while no controller took the change: retriable).
 */
public interface SecurityMetadataLog extends QuotaLog {

    /** Adds the ACL entries (present ones stay once). */
    CompletableFuture<Void> addAcls(List<Acl> acls);

    /**
     * Completes once this node's {@link Authorizer} holds every ACL change the cluster has
     * answered as done, on whichever node it was made (a read barrier through the controller):
     * DeleteAcls matches its filters after it, so an entry created through another node a moment
     * before is found, as Kafka's controller finds it.
     */
    CompletableFuture<Void> catchUp();

    /** Removes the ACL entries; completes with, per entry, whether this change removed it. */
    CompletableFuture<List<Boolean>> removeAcls(List<Acl> acls);

    /** Sets or deletes SCRAM credentials (a change without a salt deletes). */
    CompletableFuture<Void> changeCredentials(List<ScramCredentials.Change> changes);

    /**
     * In one change: adds the new delegation tokens {@code created}, moves the expiry of each token
     * id of {@code newExpiries} (epoch ms) and removes the tokens {@code removed} (absent ones are
     * ignored). A new expiry is conditional: it applies only to a token the cluster still holds
     * (and not beyond its maximum time), so a renewal cannot bring back a token removed through
     * another node a moment before. Completes with the ids of {@code newExpiries} that did not
     * apply, for which {@link DelegationTokens} answers DELEGATION_TOKEN_NOT_FOUND.
     */
    CompletableFuture<Set<String>> changeTokens(List<DelegationToken> created, Map<String, Long> newExpiries,
            List<String> removed);
}
