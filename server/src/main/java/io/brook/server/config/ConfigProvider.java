package io.brook.server.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where {@link ConfigProviders} looks a variable up: Kafka's three providers, each known by
 * Kafka's class name so that a {@code server.properties} written for Kafka works unchanged.
 *
 * <ul>
 *   <li>{@code FileConfigProvider}: the path is a properties file, the key one of its entries.
 *   <li>{@code DirectoryConfigProvider}: the path is a directory, the key the name of a regular
 *       file in it, the value that file's whole content (UTF-8, kept as it is, a trailing newline
 *       included).
 *   <li>{@code EnvVarConfigProvider}: no path, the key an environment variable's name; the
 *       parameter {@code allowlist.pattern} (a regular expression, the whole name must match)
 *       limits which.
 * </ul>
 *
 * <p>The first two take {@code allowed.paths}: absolute paths, each of which must exist; a path
 * that is not under one of them (after {@code .} and {@code ..} are taken out) is not read, and
 * its variables stay as written.
 */
interface ConfigProvider {

    String KAFKA_PACKAGE = "org.apache.kafka.common.config.provider.";

    /**
     * The values of those of {@code keys} found at {@code path}.
     *
     * @throws IllegalArgumentException when {@code path} cannot be read, or this provider takes none
     */
    Map<String, String> get(String path, Set<String> keys);

    /**
     * The provider Kafka calls {@code className}, set up with its {@code params}.
     *
     * @throws IllegalArgumentException for a class that is not one of Kafka's three, or a bad parameter
     */
    static ConfigProvider of(String className, Map<String, String> params, Map<String, String> env) {
        return switch (className) {
            case KAFKA_PACKAGE + "FileConfigProvider" -> new FileProvider(AllowedPaths.parse(params));
            case KAFKA_PACKAGE + "DirectoryConfigProvider" -> new DirectoryProvider(AllowedPaths.parse(params));
            case KAFKA_PACKAGE + "EnvVarConfigProvider" -> new EnvironmentProvider(env, params.get("allowlist.pattern"));
            default -> throw new IllegalArgumentException("Brook has Kafka's FileConfigProvider,"
                    + " DirectoryConfigProvider and EnvVarConfigProvider (in " + KAFKA_PACKAGE.substring(0,
                    KAFKA_PACKAGE.length() - 1) + ") and loads no other class");
        };
    }

    /** {@code allowed.paths}, or null for every path. */
    record AllowedPaths(List<Path> paths) {

        private static final Logger LOG = LoggerFactory.getLogger(ConfigProvider.class);

        static AllowedPaths parse(Map<String, String> params) {
            String value = params.get("allowed.paths");
            if (value == null || value.isEmpty()) {
                return new AllowedPaths(null);
            }
            List<Path> paths = new ArrayList<>();
            for (String p : value.split(",")) {
                Path path = Path.of(p.trim()).normalize();
                if (!path.isAbsolute()) {
                    throw new IllegalArgumentException("allowed.paths: " + path + " is not absolute");
                }
                if (!Files.exists(path)) {
                    throw new IllegalArgumentException("allowed.paths: " + path + " does not exist");
                }
                paths.add(path);
            }
            return new AllowedPaths(List.copyOf(paths));
        }

        /** {@code path} if it may be read, else null (logged unless empty). */
        Path check(String path) {
            if (path.isEmpty()) {
                return null;
            }
            Path p = Path.of(path);
            if (paths == null) {
                return p;
            }
            Path normal = p.normalize();
            for (Path allowed : paths) {
                if (normal.startsWith(allowed)) {
                    return normal;
                }
            }
            LOG.warn("Config provider path {} is not under allowed.paths {}: not read", path, paths);
            return null;
        }
    }

    /** Kafka's {@code FileConfigProvider}. */
    record FileProvider(AllowedPaths allowed) implements ConfigProvider {
        @Override
        public Map<String, String> get(String path, Set<String> keys) {
            Path file = allowed.check(path);
            if (file == null) {
                return Map.of();
            }
            Properties p = new Properties();
            try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                p.load(r);
            } catch (IOException | IllegalArgumentException e) {
                throw new IllegalArgumentException("cannot read properties from " + path + ": " + e, e);
            }
            Map<String, String> out = new HashMap<>();
            for (String key : keys) {
                String v = p.getProperty(key);
                if (v != null) {
                    out.put(key, v);
                }
            }
            return out;
        }
    }

    /** Kafka's {@code DirectoryConfigProvider}. */
    record DirectoryProvider(AllowedPaths allowed) implements ConfigProvider {
        @Override
        public Map<String, String> get(String path, Set<String> keys) {
            Path dir = allowed.check(path);
            if (dir == null || !Files.isDirectory(dir)) {
                return Map.of();
            }
            // the directory's own entries only: a key cannot name a file elsewhere
            Map<String, String> out = new HashMap<>();
            try (Stream<Path> files = Files.list(dir)) {
                for (Path f : (Iterable<Path>) files::iterator) {
                    String name = f.getFileName().toString();
                    if (keys.contains(name) && Files.isRegularFile(f)) {
                        out.put(name, Files.readString(f, StandardCharsets.UTF_8));
                    }
                }
            } catch (IOException e) {
                throw new IllegalArgumentException("cannot read " + path + ": " + e, e);
            }
            return out;
        }
    }

    /** Kafka's {@code EnvVarConfigProvider}. */
    record EnvironmentProvider(Map<String, String> env, Pattern allowlist) implements ConfigProvider {

        EnvironmentProvider(Map<String, String> env, String allowlist) {
            this(env, compile(allowlist));
        }

        private static Pattern compile(String allowlist) {
            try {
                return Pattern.compile(allowlist == null ? ".*" : allowlist);
            } catch (PatternSyntaxException e) {
                throw new IllegalArgumentException("allowlist.pattern is not a regular expression: " + e.getMessage(), e);
            }
        }

        @Override
        public Map<String, String> get(String path, Set<String> keys) {
            if (!path.isEmpty()) {
                throw new IllegalArgumentException("takes no path, and was given '" + path + "'");
            }
            Map<String, String> out = new HashMap<>();
            for (String key : keys) {
                String v = env.get(key);
                if (v != null && allowlist.matcher(key).matches()) {
                    out.put(key, v);
                }
            }
            return out;
        }
    }
}
