package io.brook.reliability;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/** Failures counted by what failed and the exception's class, with the first message of each. Thread-safe. */
final class Failures {
    private final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();
    private final Map<String, String> firstMessages = new ConcurrentHashMap<>();

    /** Counts {@code e} under {@code where} (e.g. "commit ") followed by its class name. */
    void add(String where, Exception e) {
        String key = where + e.getClass().getSimpleName();
        counts.computeIfAbsent(key, k -> new AtomicLong()).incrementAndGet();
        firstMessages.putIfAbsent(key, String.valueOf(e.getMessage()));
    }

    boolean isEmpty() {
        return counts.isEmpty();
    }

    /** The counts, sorted by key. */
    Map<String, Long> counts() {
        Map<String, Long> m = new TreeMap<>();
        counts.forEach((k, v) -> m.put(k, v.get()));
        return m;
    }

    Map<String, String> firstMessages() {
        return new TreeMap<>(firstMessages);
    }

    @Override
    public String toString() {
        return counts().toString();
    }
}
