package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.Await;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /ready} on the HTTP admin listener answers 200 only once the logs are recovered, the
 * listener accepts and the group coordinator has loaded {@code __consumer_offsets}, which it does
 * in the background after the broker already serves: while that load is held, 503.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReadinessTest {

    @TempDir
    Path dataDir;

    private static int status(Brook brook, String path) {
        HttpClient http = HttpClient.newHttpClient();
        try {
            return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + brook.httpPort() + path)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Test
    void shouldAnswerNotReadyUntilTheGroupCoordinatorHasLoaded() throws Exception {
        CompletableFuture<Void> gate = new CompletableFuture<>();
        ExecutorService loader = Executors.newSingleThreadExecutor();
        Executor held = task -> gate.thenRunAsync(task, loader);
        try (Brook brook = Brook.builder().port(0).dataDir(dataDir).config("brook.http.listener", "127.0.0.1:0")
                .config("offsets.topic.num.partitions", "2").groupLoadExecutor(held).start()) {
            // serving Kafka clients already, but __consumer_offsets is not loaded
            assertThat(status(brook, "/health")).isEqualTo(200);
            assertThat(status(brook, "/ready")).isEqualTo(503);

            gate.complete(null);
            Await.until("ready once the offsets are loaded", Duration.ofSeconds(30),
                    () -> status(brook, "/ready") == 200);
        } finally {
            loader.shutdownNow();
        }
    }
}
