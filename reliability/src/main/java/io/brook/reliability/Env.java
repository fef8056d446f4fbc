package io.brook.reliability;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;

/**
 * Where a scenario runs: how it starts brokers, where their data ({@code work}) and its logs and
 * dumps ({@code out}) go, where it reports progress, and the seed of its randomness (printed, so
 * that a run can be repeated).
 */
record Env(BrokerLauncher launcher, Path work, Path out, Progress progress, long seed) {

    /** A port free on 127.0.0.1 now (the broker binds it a moment later). */
    static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
