package io.brook.server.config;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka's config providers for the broker's own settings: a value may hold variables of the form
 * {@code ${provider:[path:]key}}, which are replaced once, before the settings are parsed, by
 * what the named provider finds. This is how a {@code server.properties} keeps its passwords in
 * a file only root can read, in the files Kubernetes mounts for a secret, or in the environment:
 *
 * <pre>
 * config.providers=file,dir,env
 * config.providers.file.class=org.apache.kafka.common.config.provider.FileConfigProvider
 * config.providers.dir.class=org.apache.kafka.common.config.provider.DirectoryConfigProvider
 * config.providers.env.class=org.apache.kafka.common.config.provider.EnvVarConfigProvider
 * ssl.keystore.password=${file:/etc/brook/secrets.properties:keystore.password}
 * ssl.key.password=${dir:/run/secrets:key-password}
 * log.dirs=${env:BROOK_DATA}
 * </pre>
 *
 * <p>Brook has the three providers Kafka ships ({@link ConfigProvider}), under Kafka's class
 * names, with their parameters ({@code config.providers.<name>.param.allowed.paths},
 * {@code ...param.allowlist.pattern}); it does not load other classes, and a
 * {@code config.providers.<name>.class} naming one stops the start with a message saying so.
 * As in Kafka: the path is what lies between the first and the second colon, the key the rest; a
 * variable whose provider is not configured, or whose key the provider does not find, stays as
 * written (Brook also logs which setting and variable, never a value); a file that cannot be
 * read stops the start; Kafka's system property {@code org.apache.kafka.automatic.config.providers}
 * limits the classes a configuration may name. Values are resolved once: a resolved value that
 * itself looks like a variable is kept.
 */
public final class ConfigProviders {

    public static final String CONFIG_PROVIDERS = "config.providers";
    /** Kafka's system property: a comma-separated list of the provider classes settings may name. */
    static final String ALLOWED_CLASSES_PROPERTY = "org.apache.kafka.automatic.config.providers";

    private static final Logger LOG = LoggerFactory.getLogger(ConfigProviders.class);
    private static final String PREFIX = CONFIG_PROVIDERS + ".";
    /** provider, then the optional path up to the next colon, then the key up to the brace. */
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{([^}:]*):(?:([^}:]*):)?([^}]*)}");

    private ConfigProviders() {
    }

    /** Whether {@code name} configures a provider ({@code config.providers.<name>.class} or {@code .param.*}). */
    static boolean isProviderSetting(String name) {
        return name.startsWith(PREFIX);
    }

    /**
     * {@code settings} with every variable a configured provider resolves replaced; the same keys
     * in the same order. Without {@code config.providers} a copy of {@code settings}.
     *
     * @throws IllegalArgumentException for a provider class Brook does not have or may not use,
     *     a bad parameter, or a file or directory that cannot be read
     */
    public static Map<String, String> resolve(Map<String, String> settings) {
        return resolve(settings, System.getenv(), System.getProperty(ALLOWED_CLASSES_PROPERTY));
    }

    static Map<String, String> resolve(Map<String, String> settings, Map<String, String> env, String allowedClasses) {
        Map<String, ConfigProvider> providers = providers(settings, env, allowedClasses);
        Map<String, String> out = new LinkedHashMap<>();
        if (providers.isEmpty()) {
            out.putAll(settings);
            return out;
        }
        // one lookup per provider and path, of every key the settings ask there
        Map<String, Map<String, Set<String>>> wanted = new HashMap<>();
        for (String value : settings.values()) {
            for (Variable v : variables(value)) {
                if (providers.containsKey(v.provider)) {
                    wanted.computeIfAbsent(v.provider, p -> new HashMap<>())
                            .computeIfAbsent(v.path, p -> new TreeSet<>()).add(v.key);
                }
            }
        }
        Map<String, Map<String, Map<String, String>>> found = new HashMap<>();
        for (Map.Entry<String, Map<String, Set<String>>> byProvider : wanted.entrySet()) {
            String provider = byProvider.getKey();
            for (Map.Entry<String, Set<String>> byPath : byProvider.getValue().entrySet()) {
                Map<String, String> values;
                try {
                    values = providers.get(provider).get(byPath.getKey(), byPath.getValue());
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("Config provider '" + provider + "': " + e.getMessage(), e);
                }
                found.computeIfAbsent(provider, p -> new HashMap<>()).put(byPath.getKey(), values);
            }
        }
        for (Map.Entry<String, String> e : settings.entrySet()) {
            out.put(e.getKey(), replace(e.getKey(), e.getValue(), found));
        }
        return out;
    }

    private static String replace(String setting, String value, Map<String, Map<String, Map<String, String>>> found) {
        if (value == null) {
            return null;
        }
        Matcher m = VARIABLE.matcher(value);
        StringBuilder out = new StringBuilder();
        int last = 0;
        while (m.find()) {
            Variable v = Variable.of(m);
            Map<String, Map<String, String>> byPath = found.get(v.provider);
            String replacement = byPath == null ? null : byPath.get(v.path).get(v.key);
            if (replacement == null) {
                LOG.warn("Setting {} keeps {} as written: {}", setting, m.group(),
                        byPath == null ? "config.providers has no provider '" + v.provider + "'"
                                : "provider '" + v.provider + "' found no '" + v.key + "'"
                                        + (v.path.isEmpty() ? "" : " at " + v.path));
                continue;
            }
            out.append(value, last, m.start()).append(replacement);
            last = m.end();
        }
        return out.append(value, last, value.length()).toString();
    }

    private static Map<String, ConfigProvider> providers(Map<String, String> settings, Map<String, String> env,
            String allowedClasses) {
        String names = settings.get(CONFIG_PROVIDERS);
        if (names == null || names.isBlank()) {
            return Map.of();
        }
        Set<String> allowed = allowedClasses == null ? null : new TreeSet<>(Arrays.stream(allowedClasses.split(","))
                .map(String::trim).toList());
        Map<String, ConfigProvider> providers = new HashMap<>();
        for (String raw : names.split(",")) {
            String name = raw.trim();
            if (name.isEmpty()) {
                continue;
            }
            String classSetting = PREFIX + name + ".class";
            String className = settings.get(classSetting);
            if (className == null) {
                LOG.warn("{} names '{}' but {} is not set: its variables stay as written", CONFIG_PROVIDERS, name,
                        classSetting);
                continue;
            }
            className = className.trim();
            if (allowed != null && !allowed.contains(className)) {
                throw new IllegalArgumentException(classSetting + ": " + className + " is not allowed; the system"
                        + " property " + ALLOWED_CLASSES_PROPERTY + " allows " + allowed);
            }
            Map<String, String> params = new HashMap<>();
            String paramPrefix = PREFIX + name + ".param.";
            settings.forEach((k, v) -> {
                if (k.startsWith(paramPrefix) && k.length() > paramPrefix.length()) {
                    params.put(k.substring(paramPrefix.length()), v);
                }
            });
            try {
                providers.put(name, ConfigProvider.of(className, params, env));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("Config provider '" + name + "' (" + classSetting + "=" + className
                        + "): " + e.getMessage(), e);
            }
        }
        return providers;
    }

    private static List<Variable> variables(String value) {
        List<Variable> out = new ArrayList<>();
        if (value != null) {
            Matcher m = VARIABLE.matcher(value);
            while (m.find()) {
                out.add(Variable.of(m));
            }
        }
        return out;
    }

    private record Variable(String provider, String path, String key) {
        static Variable of(Matcher m) {
            return new Variable(m.group(1), m.group(2) == null ? "" : m.group(2), m.group(3));
        }
    }
}
