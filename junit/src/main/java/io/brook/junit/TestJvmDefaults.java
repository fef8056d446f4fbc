package io.brook.junit;

import java.util.Properties;

/**
 * System properties the extension sets in the test JVM before it starts its first broker, each
 * only when the property is unset: a value given on the command line (Surefire's {@code argLine})
 * or by the test always wins. They change what a broker costs to start in a new JVM, never what it
 * does.
 *
 * <p>{@value #NETTY_JFR}{@code =false}: Netty registers Java Flight Recorder event types for its
 * buffer allocator on the first allocation, which sets up the JDK's JFR metadata (about a hundred
 * classes, annotation proxies) on the broker's event loop while it answers the first request:
 * measured at 80-120 ms of that thread's CPU in a new JVM (2 busy cores), for events no test
 * records. Netty reads the property once, when its {@code PlatformDependent} class initialises,
 * so it has no effect in a JVM where Netty ran before the first broker. {@code bin/brook} sets the
 * same.
 */
final class TestJvmDefaults {
    static final String NETTY_JFR = "io.netty.jfr.enabled";

    private TestJvmDefaults() {
    }

    /** Sets each default whose system property is unset; idempotent. */
    static void apply() {
        apply(System.getProperties());
    }

    static void apply(Properties properties) {
        properties.putIfAbsent(NETTY_JFR, "false");
    }
}
