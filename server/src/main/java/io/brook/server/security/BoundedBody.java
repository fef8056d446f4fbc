package io.brook.server.security;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * What the broker reads from an identity provider (a JWKS key set, an OAuth token endpoint's
 * answer, or the files that stand for them) is read whole into memory, so it is bounded: at most
 * {@link #MAX_BYTES}, far above any real key set or token answer. A longer HTTP answer is cancelled
 * as soon as it passes the bound, and a longer file is not read; either fails with an
 * {@link IOException} that says so.
 */
final class BoundedBody {

    /** The most an answer or file may hold: 1 MiB. */
    static final int MAX_BYTES = 1024 * 1024;

    private BoundedBody() {
    }

    /** A body handler that reads the answer as UTF-8 text of at most {@code maxBytes}. */
    static HttpResponse.BodyHandler<String> utf8(int maxBytes) {
        return info -> new Subscriber(maxBytes);
    }

    /** The UTF-8 text of {@code file}, which may hold at most {@code maxBytes}. */
    static String readFile(Path file, int maxBytes) throws IOException {
        long size = Files.size(file);
        if (size > maxBytes) {
            throw new IOException(file + " holds " + size + " bytes, more than the " + maxBytes + " accepted");
        }
        return Files.readString(file, StandardCharsets.UTF_8);
    }

    /** Collects the body's bytes until the bound; past it, cancels the answer and fails. */
    private static final class Subscriber implements HttpResponse.BodySubscriber<String> {
        private final int maxBytes;
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        private final CompletableFuture<String> body = new CompletableFuture<>();
        private Flow.Subscription subscription;

        Subscriber(int maxBytes) {
            this.maxBytes = maxBytes;
        }

        @Override
        public CompletionStage<String> getBody() {
            return body;
        }

        @Override
        public void onSubscribe(Flow.Subscription s) {
            subscription = s;
            s.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(List<ByteBuffer> items) {
            if (body.isDone()) {
                return;
            }
            for (ByteBuffer b : items) {
                if (bytes.size() + (long) b.remaining() > maxBytes) {
                    subscription.cancel();
                    body.completeExceptionally(new IOException("the answer is longer than the " + maxBytes
                            + " bytes accepted"));
                    return;
                }
                byte[] chunk = new byte[b.remaining()];
                b.get(chunk);
                bytes.write(chunk, 0, chunk.length);
            }
        }

        @Override
        public void onError(Throwable t) {
            body.completeExceptionally(t);
        }

        @Override
        public void onComplete() {
            body.complete(bytes.toString(StandardCharsets.UTF_8));
        }
    }
}
