package io.brook.server.security;

import static io.brook.server.security.Acl.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.server.security.quota.ClientQuotaStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One CreateAcls request creates, and one DeleteAcls request removes, at most {@value
 * Authorizer#MAX_CHANGES_PER_REQUEST} distinct entries; a larger one changes nothing, on a single
 * node and in cluster mode.
 */
class AclRequestLimitTest {

    private static final int MAX = Authorizer.MAX_CHANGES_PER_REQUEST;
    private static final AclFilter EVERY = new AclFilter(ANY, null, ANY, null, null, ANY, ANY);

    @TempDir
    Path dir;

    private Authorizer authorizer() throws Exception {
        return Authorizer.create(Map.of("authorizer.class.name", Authorizer.KAFKA_STANDARD_AUTHORIZER), dir);
    }

    /** {@code count} distinct entries for {@code principal}, one topic each. */
    private static List<Acl> entries(String principal, int count) {
        List<Acl> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            out.add(new Acl(TOPIC, "t" + i, LITERAL, principal, "*", READ, ALLOW));
        }
        return out;
    }

    @Test
    void createsUpToTheLimitOfDistinctEntriesAndNothingBeyond() throws Exception {
        Authorizer a = authorizer();
        List<Acl> tooMany = entries("User:bob", MAX + 1);

        assertThatThrownBy(() -> a.create(tooMany).join()).isInstanceOf(CompletionException.class)
                .cause().isInstanceOf(AclChangeTooLarge.class)
                .hasMessage("Unable to perform excessively large batch operation: 10001 ACLs to create, one request"
                        + " may change at most 10000 ACLs.");
        assertThat(a.describe(EVERY)).isEmpty();

        List<Acl> withRepeats = new ArrayList<>(tooMany.subList(0, MAX));
        withRepeats.add(tooMany.get(0));
        a.create(withRepeats).join();
        assertThat(authorizer().describe(EVERY)).as("stored").hasSize(MAX);
    }

    @Test
    void deletesUpToTheLimitOfMatchedEntriesAndNothingBeyond() throws Exception {
        Authorizer a = authorizer();
        a.create(entries("User:bob", MAX)).join();
        a.create(entries("User:carol", 1)).join();

        assertThatThrownBy(() -> a.delete(List.of(EVERY)).join()).cause().isInstanceOf(AclChangeTooLarge.class)
                .hasMessageContaining("the filters match 10001 ACLs");
        assertThat(authorizer().describe(EVERY)).hasSize(MAX + 1);

        // two filters that match the same 10,000 entries: each is counted once
        AclFilter bobs = new AclFilter(ANY, null, ANY, "User:bob", null, ANY, ANY);
        AclFilter bobsTopics = new AclFilter(TOPIC, null, LITERAL, "User:bob", null, READ, ALLOW);
        List<List<Acl>> removed = a.delete(List.of(bobs, bobsTopics)).join();
        assertThat(removed.get(0)).hasSize(MAX);
        assertThat(removed.get(1)).hasSize(MAX);
        assertThat(authorizer().describe(EVERY)).extracting(Acl::principal).containsExactly("User:carol");
    }

    @Test
    void inClusterModeARefusedChangeWritesNothingToTheLog() throws Exception {
        Authorizer node = authorizer();
        RecordingLog log = new RecordingLog(node);
        node.keptIn(CompletableFuture.completedFuture(log));
        log.add(entries("User:bob", MAX));
        log.add(entries("User:carol", 1));

        assertThatThrownBy(() -> node.create(entries("User:dave", MAX + 1)).join()).cause()
                .isInstanceOf(AclChangeTooLarge.class);
        assertThatThrownBy(() -> node.delete(List.of(EVERY)).join()).cause().isInstanceOf(AclChangeTooLarge.class);
        assertThat(log.writes).isZero();
        assertThat(node.describe(EVERY)).hasSize(MAX + 1);

        assertThat(node.delete(List.of(new AclFilter(ANY, null, ANY, "User:carol", null, ANY, ANY))).join().get(0))
                .hasSize(1);
        assertThat(log.writes).isOne();
    }

    /** The cluster's log as this node alone: every change is applied at once and counted. */
    private static final class RecordingLog implements SecurityMetadataLog {
        private final Authorizer node;
        private final List<Acl> entries = new ArrayList<>();
        int writes;

        RecordingLog(Authorizer node) {
            this.node = node;
        }

        /** Entries the cluster has from before (not counted as writes). */
        void add(List<Acl> acls) {
            entries.addAll(acls);
            node.replaceAll(List.copyOf(entries));
        }

        @Override
        public CompletableFuture<Void> addAcls(List<Acl> acls) {
            writes++;
            add(acls);
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletableFuture<Void> catchUp() {
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletableFuture<List<Boolean>> removeAcls(List<Acl> acls) {
            writes++;
            List<Boolean> flags = new ArrayList<>();
            for (Acl a : acls) {
                flags.add(entries.remove(a));
            }
            node.replaceAll(List.copyOf(entries));
            return CompletableFuture.completedFuture(flags);
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
