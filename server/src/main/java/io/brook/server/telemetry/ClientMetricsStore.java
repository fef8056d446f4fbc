package io.brook.server.telemetry;

import io.brook.storage.file.DurableFiles;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * The client metrics subscriptions on disk: {@code meta/client-metrics}, a properties file with
 * one entry {@code <subscription name>.<key>} per config. Each change rewrites the whole file
 * (temp file, fsync, rename: {@link DurableFiles#writeAtomically}) before it takes effect, as the
 * dynamic broker configs are kept. The keys are a fixed set, so an entry splits unambiguously at
 * the suffix that names one, whatever dots the subscription's name holds.
 */
final class ClientMetricsStore {

    static final String FILE = "client-metrics";

    private final Path file;

    private ClientMetricsStore(Path file) {
        this.file = file;
    }

    /** The store in {@code metaDir}, or one that keeps nothing when {@code metaDir} is null (tests). */
    static ClientMetricsStore in(Path metaDir) {
        return new ClientMetricsStore(metaDir == null ? null : metaDir.resolve(FILE));
    }

    /** Every stored subscription's configs, by name (none yet: empty). */
    Map<String, Map<String, String>> load() throws IOException {
        Map<String, Map<String, String>> out = new TreeMap<>();
        if (file == null) {
            return out;
        }
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(file)) {
            p.load(new InputStreamReader(in, StandardCharsets.UTF_8));
        } catch (NoSuchFileException e) {
            return out;
        }
        for (String entry : p.stringPropertyNames()) {
            String key = null;
            for (String k : ClientMetricsSubscription.KEYS) {
                if (entry.endsWith("." + k) && entry.length() > k.length() + 1) {
                    key = k;
                }
            }
            if (key == null) {
                throw new IOException(file + ": unexpected entry " + entry);
            }
            String name = entry.substring(0, entry.length() - key.length() - 1);
            out.computeIfAbsent(name, n -> new TreeMap<>()).put(key, p.getProperty(entry));
        }
        return out;
    }

    /** Replaces the file with {@code all}, durably. */
    void save(Map<String, Map<String, String>> all) throws IOException {
        if (file == null) {
            return;
        }
        Properties p = new Properties();
        all.forEach((name, configs) -> configs.forEach((k, v) -> p.setProperty(name + "." + k, v)));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        p.store(new OutputStreamWriter(out, StandardCharsets.UTF_8), "Brook: client metrics subscriptions (KIP-714)");
        DurableFiles.writeAtomically(file, out.toByteArray());
    }
}
