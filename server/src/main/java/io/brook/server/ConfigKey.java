package io.brook.server;

import java.util.List;
import java.util.Locale;

/**
 * One broker setting: its Kafka name, type, default and the rule a value must satisfy.
 * Parsing never throws anything but {@link IllegalArgumentException} with a message that names
 * the key, the offending value and what would be accepted.
 */
record ConfigKey(String name, Type type, String defaultValue, Check check, List<String> synonyms, String doc) {

    enum Type { STRING, INT, LONG, SHORT, BOOLEAN, LIST }

    /** A range or shape rule; returns null when the value is fine, else what is wrong. */
    @FunctionalInterface
    interface Check {
        String problem(Object value);

        Check NONE = v -> null;

        static Check atLeast(long min) {
            return v -> ((Number) v).longValue() >= min ? null : "must be at least " + min;
        }

        static Check between(long min, long max) {
            return v -> {
                long l = ((Number) v).longValue();
                return l >= min && l <= max ? null : "must be between " + min + " and " + max;
            };
        }

        static Check oneOf(String... allowed) {
            return v -> {
                for (String a : allowed) {
                    if (a.equals(v)) {
                        return null;
                    }
                }
                return "must be one of " + String.join(", ", allowed);
            };
        }
    }

    ConfigKey {
        synonyms = List.copyOf(synonyms);
    }

    /** Parses and checks a raw value; {@code source} names where it came from for the message. */
    Object parse(String raw) {
        String s = raw.trim();
        Object value;
        try {
            value = switch (type) {
                case STRING -> s;
                case INT -> Integer.parseInt(s);
                case LONG -> Long.parseLong(s);
                case SHORT -> Short.parseShort(s);
                case BOOLEAN -> parseBoolean(s);
                case LIST -> s.isEmpty() ? List.of() : List.of(s.split("\\s*,\\s*"));
            };
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("Invalid value '" + raw + "' for configuration " + name
                    + ": not a valid " + type.name().toLowerCase(Locale.ROOT)
                    + (type == Type.INT ? " (32-bit integer)" : type == Type.SHORT ? " (16-bit integer)" : ""));
        }
        String problem = check.problem(value);
        if (problem != null) {
            throw new IllegalArgumentException("Invalid value '" + raw + "' for configuration " + name + ": " + problem);
        }
        return value;
    }

    private Boolean parseBoolean(String s) {
        if (s.equalsIgnoreCase("true")) {
            return Boolean.TRUE;
        }
        if (s.equalsIgnoreCase("false")) {
            return Boolean.FALSE;
        }
        throw new IllegalArgumentException("Invalid value '" + s + "' for configuration " + name
                + ": expected true or false");
    }
}
