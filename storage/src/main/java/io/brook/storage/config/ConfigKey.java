package io.brook.storage.config;

import java.util.List;
import java.util.Locale;

/**
 * One setting (broker, topic or coordinator): its Kafka name, type, default and the rule a value
 * must satisfy. This is the one way Brook parses typed configuration values: parsing never throws
 * anything but {@link InvalidConfigException}, whose message names the key, the offending value
 * and what would be accepted.
 */
public record ConfigKey(String name, Type type, String defaultValue, Check check, List<String> synonyms, String doc) {

    public enum Type { STRING, INT, LONG, SHORT, DOUBLE, BOOLEAN, LIST }

    /** A range or shape rule; returns null when the value is fine, else what is wrong. */
    @FunctionalInterface
    public interface Check {
        String problem(Object value);

        Check NONE = v -> null;

        static Check atLeast(long min) {
            return v -> ((Number) v).longValue() >= min ? null : "must be at least " + min;
        }

        static Check betweenDouble(double min, double max) {
            return v -> {
                double d = ((Number) v).doubleValue();
                return d >= min && d <= max ? null : "must be between " + min + " and " + max;
            };
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

    public ConfigKey {
        synonyms = List.copyOf(synonyms);
    }

    /** A key without synonyms or documentation, for settings that are parsed but not listed. */
    public static ConfigKey of(String name, Type type, String defaultValue, Check check) {
        return new ConfigKey(name, type, defaultValue, check, List.of(), "");
    }

    /** A key without synonyms, with a line of documentation (DescribeConfigs gives it when asked). */
    public static ConfigKey of(String name, Type type, String defaultValue, Check check, String doc) {
        return new ConfigKey(name, type, defaultValue, check, List.of(), doc);
    }

    /** Parses and checks a raw value. */
    public Object parse(String raw) {
        String s = raw.trim();
        Object value;
        try {
            value = switch (type) {
                case STRING -> s;
                case INT -> Integer.parseInt(s);
                case LONG -> Long.parseLong(s);
                case SHORT -> Short.parseShort(s);
                case BOOLEAN -> booleanValue(s);
                case DOUBLE -> Double.parseDouble(s);
                case LIST -> s.isEmpty() ? List.of() : List.of(s.split("\\s*,\\s*"));
            };
        } catch (NumberFormatException e) {
            throw new InvalidConfigException(name, raw, "not a valid " + type.name().toLowerCase(Locale.ROOT)
                    + (type == Type.INT ? " (32-bit integer)" : type == Type.SHORT ? " (16-bit integer)" : ""));
        }
        String problem = check.problem(value);
        if (problem != null) {
            throw new InvalidConfigException(name, raw, problem);
        }
        return value;
    }

    private Boolean booleanValue(String s) {
        if (s.equalsIgnoreCase("true")) {
            return Boolean.TRUE;
        }
        if (s.equalsIgnoreCase("false")) {
            return Boolean.FALSE;
        }
        throw new InvalidConfigException(name, s, "expected true or false");
    }

    /** {@link #parse} for an {@link Type#INT} key. */
    public int parseInt(String raw) {
        return ((Number) parse(raw)).intValue();
    }

    /** {@link #parse} for a {@link Type#LONG} key. */
    public long parseLong(String raw) {
        return ((Number) parse(raw)).longValue();
    }

    /** {@link #parse} for a {@link Type#DOUBLE} key. */
    public double parseDouble(String raw) {
        return ((Number) parse(raw)).doubleValue();
    }

    /** {@link #parse} for a {@link Type#BOOLEAN} key. */
    public boolean parseBoolean(String raw) {
        return (Boolean) parse(raw);
    }
}
