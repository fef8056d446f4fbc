package io.brook.server.security;

import static io.brook.server.security.Acl.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.server.security.quota.ClientQuotaStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AuthorizerTest {

    @TempDir
    Path dir;

    private Authorizer authorizer(String... extra) throws Exception {
        Map<String, String> s = new HashMap<>();
        s.put("authorizer.class.name", Authorizer.KAFKA_STANDARD_AUTHORIZER);
        s.put("super.users", "User:admin;User:ops");
        for (int i = 0; i < extra.length; i += 2) {
            s.put(extra[i], extra[i + 1]);
        }
        return Authorizer.create(s, dir);
    }

    private static Acl acl(byte type, String name, byte pattern, String principal, byte op, byte permission) {
        return new Acl(type, name, pattern, principal, "*", op, permission);
    }

    @Test
    void superUsersMayDoEverythingAndOthersNothingWithoutAcls() throws Exception {
        Authorizer a = authorizer();
        assertThat(a.authorize("User:ops", "10.0.0.1", ALTER, CLUSTER, CLUSTER_NAME)).isTrue();
        assertThat(a.authorize("User:alice", "10.0.0.1", READ, TOPIC, "t")).isFalse();
        Authorizer open = authorizer("allow.everyone.if.no.acl.found", "true");
        assertThat(open.authorize("User:alice", "10.0.0.1", READ, TOPIC, "t")).isTrue();
        open.create(List.of(acl(TOPIC, "t", LITERAL, "User:bob", READ, ALLOW))).join();
        assertThat(open.authorize("User:alice", "10.0.0.1", READ, TOPIC, "t")).as("the topic has ACLs now").isFalse();
    }

    @Test
    void matchesLiteralWildcardAndPrefixedPatternsAndWildcardPrincipals() throws Exception {
        Authorizer a = authorizer();
        a.create(List.of(acl(TOPIC, "orders-", PREFIXED, "User:alice", WRITE, ALLOW),
                acl(TOPIC, "*", LITERAL, "User:*", DESCRIBE, ALLOW),
                acl(GROUP, "g1", LITERAL, "User:alice", READ, ALLOW))).join();
        assertThat(a.authorize("User:alice", "h", WRITE, TOPIC, "orders-eu")).isTrue();
        assertThat(a.authorize("User:alice", "h", WRITE, TOPIC, "order")).isFalse();
        assertThat(a.authorize("User:bob", "h", DESCRIBE, TOPIC, "anything")).isTrue();
        assertThat(a.authorize("User:alice", "h", READ, GROUP, "g1")).isTrue();
        assertThat(a.authorize("User:alice", "h", READ, GROUP, "g10")).isFalse();
        assertThat(a.authorize("User:alice", "h", READ, TOPIC, "orders-eu")).isFalse();
    }

    @Test
    void denyWinsAndImpliedOperationsAreAllowOnly() throws Exception {
        Authorizer a = authorizer();
        a.create(List.of(acl(TOPIC, "t", LITERAL, "User:alice", ALL, ALLOW),
                acl(TOPIC, "t", LITERAL, "User:alice", WRITE, DENY),
                acl(TOPIC, "u", LITERAL, "User:alice", READ, ALLOW),
                acl(TOPIC, "u", LITERAL, "User:alice", READ, DENY),
                acl(TOPIC, "v", LITERAL, "User:alice", ALTER_CONFIGS, ALLOW),
                acl(TOPIC, "v", LITERAL, "User:alice", READ, ALLOW))).join();
        assertThat(a.authorize("User:alice", "h", READ, TOPIC, "t")).isTrue();
        assertThat(a.authorize("User:alice", "h", WRITE, TOPIC, "t")).isFalse();
        assertThat(a.authorize("User:alice", "h", READ, TOPIC, "u")).isFalse();
        assertThat(a.authorize("User:alice", "h", DESCRIBE, TOPIC, "u")).as("a DENY of READ denies READ only").isTrue();
        assertThat(a.authorize("User:alice", "h", DESCRIBE, TOPIC, "v")).isTrue();
        assertThat(a.authorize("User:alice", "h", DESCRIBE_CONFIGS, TOPIC, "v")).isTrue();
        assertThat(a.authorize("User:alice", "h", ALTER, TOPIC, "v")).isFalse();
    }

    @Test
    void hostsMustMatch() throws Exception {
        Authorizer a = authorizer();
        a.create(List.of(new Acl(TOPIC, "t", LITERAL, "User:alice", "10.0.0.1", READ, ALLOW))).join();
        assertThat(a.authorize("User:alice", "10.0.0.1", READ, TOPIC, "t")).isTrue();
        assertThat(a.authorize("User:alice", "10.0.0.2", READ, TOPIC, "t")).isFalse();
    }

    @Test
    void aclsSurviveAReopenAndDeleteByFilter() throws Exception {
        Authorizer a = authorizer();
        a.create(List.of(acl(TOPIC, "t", LITERAL, "User:alice", READ, ALLOW),
                acl(TOPIC, "t-", PREFIXED, "User:bob", READ, ALLOW),
                acl(GROUP, "g", LITERAL, "User:alice", READ, ALLOW))).join();
        Authorizer reopened = authorizer();
        assertThat(reopened.describe(new AclFilter(ANY, null, ANY, null, null, ANY, ANY))).hasSize(3);
        assertThat(reopened.describe(new AclFilter(TOPIC, "t-1", MATCH, null, null, ANY, ANY)))
                .extracting(Acl::principal).containsExactly("User:bob");
        List<List<Acl>> removed = reopened.delete(List.of(new AclFilter(ANY, null, ANY, "User:alice", null, ANY, ANY))).join();
        assertThat(removed.get(0)).hasSize(2);
        assertThat(authorizer().describe(new AclFilter(ANY, null, ANY, null, null, ANY, ANY))).hasSize(1);
    }

    @Test
    void refusesOtherAuthorizersAndInvalidEntries() {
        assertThatThrownBy(() -> Authorizer.create(Map.of("authorizer.class.name", "com.example.Mine"), dir))
                .hasMessageContaining("authorizer.class.name");
        assertThat(acl(TOPIC, "t", MATCH, "User:a", READ, ALLOW).problem()).contains("patternType");
        assertThat(acl(TOPIC, "t", LITERAL, "alice", READ, ALLOW).problem()).contains("principal");
        assertThat(acl(CLUSTER, "c", LITERAL, "User:a", ALTER, ALLOW).problem()).contains("kafka-cluster");
        assertThat(acl(TOPIC, "t", LITERAL, "User:a", ANY, ALLOW).problem()).contains("operation");
    }

    @Test
    void authorizesByResourceTypeAsKafkaDoesForIdempotentProducers() throws Exception {
        Authorizer a = authorizer();
        assertThat(a.authorizeByResourceType("User:alice", "h", WRITE, TOPIC)).as("no ACLs").isFalse();
        assertThat(a.authorizeByResourceType("User:ops", "h", WRITE, TOPIC)).as("super user").isTrue();
        a.create(List.of(acl(TOPIC, "orders-", PREFIXED, "User:alice", WRITE, ALLOW),
                acl(TOPIC, "t", LITERAL, "User:bob", READ, ALLOW),
                acl(TOPIC, "x", LITERAL, "User:carol", ALL, ALLOW),
                acl(TOPIC, "x", LITERAL, "User:carol", WRITE, DENY),
                acl(TOPIC, "orders-eu", LITERAL, "User:dave", WRITE, ALLOW),
                acl(TOPIC, "orders", PREFIXED, "User:dave", WRITE, DENY),
                acl(TOPIC, "*", LITERAL, "User:erin", WRITE, ALLOW),
                acl(TOPIC, "*", LITERAL, "User:erin", WRITE, DENY))).join();
        assertThat(a.authorizeByResourceType("User:alice", "h", WRITE, TOPIC)).as("a prefixed ALLOW").isTrue();
        assertThat(a.authorizeByResourceType("User:bob", "h", WRITE, TOPIC)).as("READ is not WRITE").isFalse();
        assertThat(a.authorizeByResourceType("User:carol", "h", WRITE, TOPIC)).as("a literal DENY on the same name")
                .isFalse();
        assertThat(a.authorizeByResourceType("User:dave", "h", WRITE, TOPIC)).as("a prefixed DENY covering it")
                .isFalse();
        assertThat(a.authorizeByResourceType("User:erin", "h", WRITE, TOPIC)).as("a DENY on *").isFalse();
        assertThat(a.authorizeByResourceType("User:alice", "h", WRITE, GROUP)).as("another resource type").isFalse();
    }

    @Test
    void inClusterModeDeleteMatchesOnlyOnceTheNodeCaughtUpWithTheController() throws Exception {
        Authorizer node = authorizer();
        Acl madeElsewhere = acl(TOPIC, "orders", LITERAL, "User:alice", READ, ALLOW);
        LaggingLog log = new LaggingLog(node, List.of(madeElsewhere));
        node.keptIn(CompletableFuture.completedFuture(log));
        assertThat(node.describe(new AclFilter(TOPIC, "orders", LITERAL, null, null, ANY, ANY)))
                .as("the node has not applied the entry created through another node").isEmpty();

        List<List<Acl>> removed = node.delete(List.of(new AclFilter(TOPIC, "orders", LITERAL, null, null, ANY, ANY)))
                .get(10, TimeUnit.SECONDS);

        assertThat(removed).containsExactly(List.of(madeElsewhere));
        assertThat(log.removed).containsExactly(madeElsewhere);
        assertThat(node.describe(new AclFilter(TOPIC, null, ANY, null, null, ANY, ANY))).isEmpty();
    }

    /**
     * The cluster's log as a node whose image lags behind the controller's: the entries created
     * through other nodes reach this node's authorizer only when it catches up.
     */
    private static final class LaggingLog implements SecurityMetadataLog {
        private final Authorizer node;
        private final List<Acl> controllers;
        final List<Acl> removed = new ArrayList<>();

        LaggingLog(Authorizer node, List<Acl> controllers) {
            this.node = node;
            this.controllers = new ArrayList<>(controllers);
        }

        @Override
        public CompletableFuture<Void> catchUp() {
            node.replaceAll(List.copyOf(controllers));
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletableFuture<List<Boolean>> removeAcls(List<Acl> acls) {
            List<Boolean> flags = new ArrayList<>();
            for (Acl a : acls) {
                flags.add(controllers.remove(a));
                removed.add(a);
            }
            node.replaceAll(List.copyOf(controllers));
            return CompletableFuture.completedFuture(flags);
        }

        @Override
        public CompletableFuture<Void> addAcls(List<Acl> acls) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Void> changeCredentials(List<ScramCredentials.Change> changes) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Set<String>> changeTokens(List<DelegationToken> created,
                Map<String, Long> newExpiries, List<String> removed) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Void> changeQuotas(List<ClientQuotaStore.Change> changes) {
            throw new UnsupportedOperationException();
        }
    }
}
