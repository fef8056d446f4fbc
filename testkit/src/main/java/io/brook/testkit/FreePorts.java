package io.brook.testkit;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Loopback ports for servers a test starts later, named in configuration before they bind.
 *
 * <p>A port taken from the kernel's ephemeral range (bind to port 0) is free only until the next
 * bind to port 0 or outbound connection in this machine takes it: a node started a moment later
 * then finds it taken, or, worse, finds another test's server answering there. So ports are
 * handed out below the usual ephemeral range (Linux: 32768 and up), where neither can land, each
 * at most once per JVM, starting at a random point so that two JVMs seldom meet, and only if a
 * bind shows them free now.
 */
public final class FreePorts {
    private static final int FIRST = 12_000;
    private static final int LAST = 32_000;
    private static final AtomicInteger NEXT =
            new AtomicInteger(FIRST + ThreadLocalRandom.current().nextInt(LAST - FIRST));

    private FreePorts() {
    }

    /** A loopback port no other caller in this JVM has been given, free at the time of the call. */
    public static int next() {
        for (int tries = 0; tries < LAST - FIRST; tries++) {
            int port = NEXT.getAndUpdate(p -> p + 1 >= LAST ? FIRST : p + 1);
            if (bindable(port)) {
                return port;
            }
        }
        throw new IllegalStateException("no free loopback port between " + FIRST + " and " + LAST);
    }

    private static boolean bindable(int port) {
        try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
