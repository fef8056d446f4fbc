package io.brook.server.security;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The SCRAM users a broker creates at start-up, so that an administrator can log in before any
 * user exists (Kafka creates them when formatting storage: {@code kafka-storage format
 * --add-scram 'SCRAM-SHA-256=[name=admin,password=admin-secret]'}). The value of
 * {@code brook.sasl.scram.bootstrap.credentials} takes the same entries, separated by
 * {@code ;}: {@code SCRAM-SHA-512=[name=admin,password=admin-secret,iterations=8192]}. A user
 * that has a credential for the mechanism already keeps it: a later AlterUserScramCredentials
 * wins over the setting.
 */
final class ScramBootstrap {

    private static final Pattern ENTRY = Pattern.compile("\\s*(SCRAM-SHA-(?:256|512))\\s*=\\s*\\[(.*)]\\s*");

    private ScramBootstrap() {
    }

    static void apply(String spec, ScramCredentials scram) {
        for (String item : spec.split(";")) {
            if (item.isBlank()) {
                continue;
            }
            Matcher m = ENTRY.matcher(item);
            if (!m.matches()) {
                throw invalid("expected SCRAM-SHA-256=[name=...,password=...] or SCRAM-SHA-512=[...]");
            }
            ScramMechanism mechanism = ScramMechanism.ofName(m.group(1));
            String name = null;
            String password = null;
            int iterations = ScramMechanism.MIN_ITERATIONS;
            for (String kv : m.group(2).split(",")) {
                int eq = kv.indexOf('=');
                if (eq <= 0) {
                    throw invalid("expected key=value in '" + kv.trim() + "'");
                }
                String key = kv.substring(0, eq).trim();
                String value = unquote(kv.substring(eq + 1).trim());
                switch (key) {
                    case "name" -> name = value;
                    case "password" -> password = value;
                    case "iterations" -> {
                        try {
                            iterations = Integer.parseInt(value);
                        } catch (NumberFormatException e) {
                            throw invalid("iterations is not a number");
                        }
                    }
                    default -> throw invalid("unknown key " + key + " (name, password, iterations)");
                }
            }
            if (name == null || name.isEmpty() || password == null || password.isEmpty()) {
                throw invalid("each entry needs a name and a password");
            }
            if (iterations < ScramMechanism.MIN_ITERATIONS || iterations > ScramMechanism.MAX_ITERATIONS) {
                throw invalid("iterations must be between " + ScramMechanism.MIN_ITERATIONS + " and "
                        + ScramMechanism.MAX_ITERATIONS);
            }
            try {
                scram.addIfAbsent(name, mechanism, password, iterations);
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot store the SCRAM credentials: " + e.getMessage(), e);
            }
        }
    }

    private static String unquote(String v) {
        return v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"") ? v.substring(1, v.length() - 1) : v;
    }

    private static IllegalArgumentException invalid(String why) {
        // (never the value: it holds passwords)
        return new IllegalArgumentException("Invalid value for configuration " + BrokerSecurity.SCRAM_BOOTSTRAP + ": "
                + why);
    }
}
