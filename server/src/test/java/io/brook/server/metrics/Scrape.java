package io.brook.server.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.Brook;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads a broker's {@code /metrics} for tests. */
public final class Scrape {
    private Scrape() {
    }

    public static String metrics(Brook brook) {
        return metrics(brook.httpPort());
    }

    /** The {@code /metrics} of the HTTP admin listener on {@code port} of the loopback address. */
    public static String metrics(int port) {
        HttpResponse<String> r = get(port, "/metrics");
        assertThat(r.statusCode()).isEqualTo(200);
        return r.body();
    }

    /** GET {@code path} from the HTTP admin listener on {@code port} of the loopback address. */
    public static HttpResponse<String> get(int port, String path) {
        try {
            return HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + port + path)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** The value of the sample {@code nameAndLabels} (as written, labels in order), or NaN when absent. */
    public static double value(String metrics, String nameAndLabels) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(nameAndLabels) + " (\\S+)$").matcher(metrics);
        return m.find() ? Double.parseDouble(m.group(1)) : Double.NaN;
    }
}
