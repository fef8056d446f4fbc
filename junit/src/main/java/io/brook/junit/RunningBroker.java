package io.brook.junit;

import io.brook.server.Brook;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * One broker started for a test context, with what was created for it: the admin client (on
 * first use) and the system properties it set. Closed by JUnit with the context's store:
 * the admin first, then the broker, then the properties are restored.
 */
final class RunningBroker implements AutoCloseable {
    private final Brook brook;
    private final PropertyHandOff properties;
    private AutoCloseable admin;

    private RunningBroker(Brook brook, PropertyHandOff properties) {
        this.brook = brook;
        this.properties = properties;
    }

    /** Starts a broker with {@code settings} (named {@code name}; "" is the default broker). */
    static RunningBroker start(BrookTest settings, String name) {
        TestJvmDefaults.apply();
        Brook.Builder b = Brook.builder().port(0).faults(settings.faults());
        for (String entry : settings.config()) {
            int eq = entry.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("@BrookTest config entry is not key=value: " + entry);
            }
            b.config(entry.substring(0, eq).trim(), entry.substring(eq + 1).trim());
        }
        if (!settings.dataDir().isEmpty()) {
            Path dir = Paths.get(settings.dataDir());
            if (!name.isEmpty()) {
                dir = dir.resolve(name);
            }
            try {
                Files.createDirectories(dir);
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot create the data directory " + dir, e);
            }
            b.dataDir(dir);
        }
        Brook brook = b.start();
        try {
            for (String topic : settings.topics()) {
                createTopic(brook, topic);
            }
            PropertyHandOff props = name.isEmpty()
                    ? PropertyHandOff.set(settings.bootstrapProperties(), brook.bootstrapServers())
                    : PropertyHandOff.NONE;
            return new RunningBroker(brook, props);
        } catch (RuntimeException e) {
            brook.close();
            throw e;
        }
    }

    private static void createTopic(Brook brook, String spec) {
        int colon = spec.lastIndexOf(':');
        String name = colon < 0 ? spec.trim() : spec.substring(0, colon).trim();
        int partitions = 1;
        if (colon >= 0) {
            try {
                partitions = Integer.parseInt(spec.substring(colon + 1).trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("@BrookTest topic is not name or name:partitions: " + spec, e);
            }
        }
        brook.createTopic(name, partitions);
    }

    Brook brook() {
        return brook;
    }

    /** The admin client of {@code type}, created on first use (kafka-clients found reflectively). */
    synchronized Object admin(Class<?> type) {
        if (admin == null) {
            admin = ReflectiveAdmin.create(type.getClassLoader(), brook.bootstrapServers());
        }
        if (!type.isInstance(admin)) {
            throw new IllegalArgumentException("the admin client is a " + admin.getClass().getName()
                    + ", not a " + type.getName());
        }
        return admin;
    }

    @Override
    public void close() {
        try {
            AutoCloseable a;
            synchronized (this) {
                a = admin;
                admin = null;
            }
            if (a != null) {
                a.close();
            }
        } catch (Exception e) {
            throw new IllegalStateException("could not close the admin client of " + brook.bootstrapServers(), e);
        } finally {
            try {
                brook.close();
            } finally {
                properties.restore();
            }
        }
    }
}
