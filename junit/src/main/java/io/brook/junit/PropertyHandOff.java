package io.brook.junit;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * System properties set to a broker's bootstrap servers, and what they held before: restored
 * (or cleared, when they were unset) when the broker closes.
 */
final class PropertyHandOff {
    static final PropertyHandOff NONE = new PropertyHandOff(Map.of());

    /** Earlier value of each property set, null when it was unset. */
    private final Map<String, String> previous;

    private PropertyHandOff(Map<String, String> previous) {
        this.previous = previous;
    }

    static PropertyHandOff set(String[] names, String bootstrapServers) {
        if (names.length == 0) {
            return NONE;
        }
        Map<String, String> previous = new LinkedHashMap<>();
        for (String name : names) {
            if (!previous.containsKey(name)) {
                previous.put(name, System.getProperty(name));
            }
            System.setProperty(name, bootstrapServers);
        }
        return new PropertyHandOff(previous);
    }

    void restore() {
        for (Map.Entry<String, String> e : previous.entrySet()) {
            if (e.getValue() == null) {
                System.clearProperty(e.getKey());
            } else {
                System.setProperty(e.getKey(), e.getValue());
            }
        }
    }
}
