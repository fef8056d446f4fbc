package io.brook.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Groups' own settings: kept durably on a single node, given by the metadata log in cluster mode. */
class GroupConfigStoreTest {

    @TempDir
    Path meta;

    @Test
    void settingsSurviveAReopenAndAnEmptyReplacementRemovesTheGroup() throws IOException {
        GroupConfigStore store = GroupConfigStore.open(meta);
        store.replace("orders app", Map.of("consumer.session.timeout.ms", "50000")).join();
        store.replace("g,=\u00e9", Map.of("consumer.heartbeat.interval.ms", "6000",
                "consumer.session.timeout.ms", "48000")).join();
        GroupConfigStore reopened = GroupConfigStore.open(meta);
        assertThat(reopened.of("orders app")).containsExactly(Map.entry("consumer.session.timeout.ms", "50000"));
        assertThat(reopened.of("g,=\u00e9")).hasSize(2);
        assertThat(reopened.of("unknown")).isEmpty();

        reopened.replace("orders app", Map.of()).join();
        assertThat(GroupConfigStore.open(meta).all()).containsOnlyKeys("g,=\u00e9");
    }

    @Test
    void aDamagedFileStopsTheOpenWithItsReason() throws IOException {
        Files.writeString(meta.resolve(GroupConfigStore.FILE_NAME), "not a line of three fields\n");
        assertThatThrownBy(() -> GroupConfigStore.open(meta)).isInstanceOf(IOException.class)
                .hasMessageContaining(GroupConfigStore.FILE_NAME);
    }

    @Test
    void inClusterModeChangesGoToTheLogAndTheImageDecides() {
        GroupConfigStore store = GroupConfigStore.forCluster();
        AtomicReference<Map<String, String>> sent = new AtomicReference<>();
        CompletableFuture<Void> early = store.replace("g", Map.of("consumer.session.timeout.ms", "50000"));
        assertThat(early).as("waits until the node joined the cluster").isNotDone();
        store.keptIn((group, settings) -> {
            sent.set(settings);
            return CompletableFuture.completedFuture(null);
        });
        early.join();
        assertThat(sent.get()).containsEntry("consumer.session.timeout.ms", "50000");
        assertThat(store.of("g")).as("not until the image has it").isEmpty();
        store.replaceAll(Map.of("g", Map.of("consumer.session.timeout.ms", "50000")));
        assertThat(store.of("g")).containsEntry("consumer.session.timeout.ms", "50000");
    }
}
