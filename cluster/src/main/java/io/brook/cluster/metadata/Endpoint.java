package io.brook.cluster.metadata;

import java.util.Objects;

/** One listener a broker registered: its name ({@code PLAINTEXT}, ...), advertised host and port. */
public record Endpoint(String name, String host, int port) {
    public Endpoint {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(host, "host");
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port out of range: " + port);
        }
    }
}
