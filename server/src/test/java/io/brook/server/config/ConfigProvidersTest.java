package io.brook.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigProvidersTest {

    private static final String FILE = ConfigProvider.KAFKA_PACKAGE + "FileConfigProvider";
    private static final String DIR = ConfigProvider.KAFKA_PACKAGE + "DirectoryConfigProvider";
    private static final String ENV = ConfigProvider.KAFKA_PACKAGE + "EnvVarConfigProvider";

    @TempDir
    Path tmp;

    private static Map<String, String> settings(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    private static Map<String, String> resolve(Map<String, String> settings) {
        return ConfigProviders.resolve(settings, Map.of("BROOK_DATA", "/var/lib/brook", "SECRET_X", "x"), null);
    }

    private Path secrets() throws IOException {
        return Files.writeString(tmp.resolve("secrets.properties"),
                "keystore.password=ks-secret\nretention=3600000\nwith.colon=a:b\n");
    }

    @Test
    void shouldReplaceTheVariablesOfEachOfKafkasThreeProviders() throws IOException {
        Path file = secrets();
        Path dir = Files.createDirectory(tmp.resolve("mounted"));
        Files.writeString(dir.resolve("key-password"), "key-secret");
        Files.writeString(dir.resolve("with-newline"), "n\n");

        Map<String, String> out = resolve(settings(
                "config.providers", "file, dir,env",
                "config.providers.file.class", FILE,
                "config.providers.dir.class", DIR,
                "config.providers.env.class", ENV,
                "ssl.keystore.password", "${file:" + file + ":keystore.password}",
                "ssl.key.password", "${dir:" + dir + ":key-password}",
                "ssl.truststore.password", "${dir:" + dir + ":with-newline}",
                "log.dirs", "${env:BROOK_DATA}",
                "log.retention.ms", "1${file:" + file + ":retention}",
                "sasl.jaas.config", "user_a=\"${file:" + file + ":keystore.password}\" user_b=\"${env:SECRET_X}\";",
                "odd", "${file:" + file + ":with.colon}",
                "num.partitions", "3"));

        assertThat(out).containsEntry("ssl.keystore.password", "ks-secret")
                .containsEntry("ssl.key.password", "key-secret")
                .containsEntry("ssl.truststore.password", "n\n") // the file's whole content, as Kafka reads it
                .containsEntry("log.dirs", "/var/lib/brook")
                .containsEntry("log.retention.ms", "13600000")
                .containsEntry("sasl.jaas.config", "user_a=\"ks-secret\" user_b=\"x\";")
                .containsEntry("odd", "a:b")
                .containsEntry("num.partitions", "3")
                .containsEntry("config.providers.file.class", FILE);
        assertThat(out.keySet()).containsExactlyElementsOf(settings(
                "config.providers", "", "config.providers.file.class", "", "config.providers.dir.class", "",
                "config.providers.env.class", "", "ssl.keystore.password", "", "ssl.key.password", "",
                "ssl.truststore.password", "", "log.dirs", "", "log.retention.ms", "", "sasl.jaas.config", "",
                "odd", "", "num.partitions", "").keySet());
    }

    @Test
    void shouldKeepWhatNoProviderResolvesAsWrittenAsKafkaDoes() throws IOException {
        Path file = secrets();
        Map<String, String> out = resolve(settings(
                "config.providers", "file,vault",
                "config.providers.file.class", FILE,
                "a", "${file:" + file + ":missing}",
                "b", "${vault:secret/kafka:password}",
                "c", "${other:key}",
                "d", "$ {file:" + file + ":retention} ${file} ${file:" + file + ":retention",
                "e", "${file:" + file + ":missing}-${file:" + file + ":retention}",
                "f", "${env:BROOK_DATA}"));

        assertThat(out).containsEntry("a", "${file:" + file + ":missing}")
                .containsEntry("b", "${vault:secret/kafka:password}")
                .containsEntry("c", "${other:key}")
                .containsEntry("d", "$ {file:" + file + ":retention} ${file} ${file:" + file + ":retention")
                .containsEntry("e", "${file:" + file + ":missing}-3600000")
                .containsEntry("f", "${env:BROOK_DATA}");
    }

    @Test
    void shouldResolveOnceSoThatAValueLookingLikeAVariableIsKept() throws IOException {
        Path file = Files.writeString(tmp.resolve("p.properties"), "a=${env:SECRET_X}\n");

        Map<String, String> out = resolve(settings("config.providers", "file,env", "config.providers.file.class", FILE,
                "config.providers.env.class", ENV, "x", "${file:" + file + ":a}"));

        assertThat(out).containsEntry("x", "${env:SECRET_X}");
    }

    @Test
    void shouldReturnTheSettingsUnchangedWithoutConfigProviders() {
        Map<String, String> in = settings("a", "${file:/etc/passwd:root}", "config.providers.file.class", FILE);

        assertThat(resolve(in)).isEqualTo(in);
        assertThat(resolve(settings("config.providers", " ", "a", "${x:y}"))).containsEntry("a", "${x:y}");
    }

    @Test
    void shouldReadOnlyUnderAllowedPaths() throws IOException {
        Path allowed = Files.createDirectory(tmp.resolve("allowed"));
        Path inside = Files.writeString(allowed.resolve("s.properties"), "k=inside\n");
        Path outside = Files.writeString(tmp.resolve("o.properties"), "k=outside\n");
        Path sneaky = allowed.resolve("..").resolve("o.properties");
        Path dir = Files.createDirectory(allowed.resolve("d"));
        Files.writeString(dir.resolve("k"), "in-dir");

        Map<String, String> out = resolve(settings(
                "config.providers", "file,dir",
                "config.providers.file.class", FILE,
                "config.providers.file.param.allowed.paths", allowed.toString(),
                "config.providers.dir.class", DIR,
                "config.providers.dir.param.allowed.paths", Files.createDirectory(tmp.resolve("other")) + "," + allowed,
                "in", "${file:" + inside + ":k}",
                "out", "${file:" + outside + ":k}",
                "up", "${file:" + sneaky + ":k}",
                "d", "${dir:" + dir + ":k}",
                "escape", "${dir:" + dir + ":../../o.properties}"))
                .entrySet().stream().filter(e -> !e.getKey().startsWith("config."))
                .collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));

        assertThat(out).containsEntry("in", "inside")
                .containsEntry("out", "${file:" + outside + ":k}")
                .containsEntry("up", "${file:" + sneaky + ":k}")
                .containsEntry("d", "in-dir")
                .containsEntry("escape", "${dir:" + dir + ":../../o.properties}");
        assertThatThrownBy(() -> resolve(settings("config.providers", "file", "config.providers.file.class", FILE,
                "config.providers.file.param.allowed.paths", "relative/dir")))
                .hasMessageContaining("Config provider 'file'").hasMessageContaining("relative/dir is not absolute");
        assertThatThrownBy(() -> resolve(settings("config.providers", "file", "config.providers.file.class", FILE,
                "config.providers.file.param.allowed.paths", tmp.resolve("nothing-here").toString())))
                .hasMessageContaining("nothing-here does not exist");
    }

    @Test
    void shouldLimitTheEnvironmentToTheAllowlistAndRefuseAPath() {
        Map<String, String> providers = settings("config.providers", "env", "config.providers.env.class", ENV,
                "config.providers.env.param.allowlist.pattern", "BROOK_.*");

        Map<String, String> withVars = new LinkedHashMap<>(providers);
        withVars.put("a", "${env:BROOK_DATA}");
        withVars.put("b", "${env:SECRET_X}");
        assertThat(resolve(withVars)).containsEntry("a", "/var/lib/brook").containsEntry("b", "${env:SECRET_X}");

        Map<String, String> withPath = new LinkedHashMap<>(providers);
        withPath.put("a", "${env:some/path:BROOK_DATA}");
        assertThatThrownBy(() -> resolve(withPath)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Config provider 'env'").hasMessageContaining("takes no path");
    }

    @Test
    void shouldRefuseAClassItDoesNotHaveAFileItCannotReadAndAClassTheSystemPropertyDoesNotAllow() throws IOException {
        assertThatThrownBy(() -> resolve(settings("config.providers", "vault",
                "config.providers.vault.class", "com.example.VaultConfigProvider")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Config provider 'vault' (config.providers.vault.class=com.example.VaultConfigProvider)")
                .hasMessageContaining("FileConfigProvider");
        assertThatThrownBy(() -> resolve(settings("config.providers", "file", "config.providers.file.class", FILE,
                "a", "${file:" + tmp.resolve("absent.properties") + ":k}")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Config provider 'file': cannot read properties from");
        Path file = secrets();
        Map<String, String> s = settings("config.providers", "file", "config.providers.file.class", FILE,
                "a", "${file:" + file + ":retention}");
        assertThatThrownBy(() -> ConfigProviders.resolve(s, Map.of(), ENV + "," + DIR))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(FILE + " is not allowed")
                .hasMessageContaining("org.apache.kafka.automatic.config.providers");
        assertThat(ConfigProviders.resolve(s, Map.of(), ENV + ", " + FILE)).containsEntry("a", "3600000");
    }

    @Test
    void shouldMakeConfigProvidersAKnownBrokerSettingAndItsProvidersSettingsNoUnknownKeys() {
        BrokerConfig config = BrokerConfig.parse(settings("config.providers", "file",
                "config.providers.file.class", FILE, "config.providers.file.param.allowed.paths", "/etc"));

        assertThat(config.unknownKeys()).isEmpty();
        assertThat(config.value("config.providers")).isEqualTo(java.util.List.of("file"));
        assertThat(BrokerConfig.defaults().value("config.providers")).isEqualTo(java.util.List.of());
    }
}
