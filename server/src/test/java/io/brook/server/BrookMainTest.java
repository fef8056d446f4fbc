package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class BrookMainTest {

    @Test
    void shouldReadOptionsGivenAsSeparateArgumentsOrWithEquals() {
        BrookMain m = new BrookMain().parse("--port", "19092", "--data-dir=/var/lib/brook", "--config", "b.properties",
                "--override", "num.partitions=6", "--override=log.retention.hours=24");

        assertThat(m.port).isEqualTo(19092);
        assertThat(m.dataDir).isEqualTo(Path.of("/var/lib/brook"));
        assertThat(m.configFile).isEqualTo(Path.of("b.properties"));
        assertThat(m.overrides).containsExactly(
                java.util.Map.entry("num.partitions", "6"), java.util.Map.entry("log.retention.hours", "24"));
        assertThat(m.help || m.version || m.exitAfterStart).isFalse();
    }

    @Test
    void shouldKeepEverythingAfterTheFirstEqualsSignOfAnOverrideAsItsValue() {
        BrookMain m = new BrookMain().parse("--override", "listeners=PLAINTEXT://127.0.0.1:9093", "--override", "a=");

        assertThat(m.overrides).containsEntry("listeners", "PLAINTEXT://127.0.0.1:9093").containsEntry("a", "");
    }

    @Test
    void shouldRecogniseTheFlags() {
        assertThat(new BrookMain().parse("-h").help).isTrue();
        assertThat(new BrookMain().parse("--help").help).isTrue();
        assertThat(new BrookMain().parse("-V").version).isTrue();
        assertThat(new BrookMain().parse("--version").version).isTrue();
        assertThat(new BrookMain().parse("--exit-after-start").exitAfterStart).isTrue();
    }

    @Test
    void shouldRejectUnknownOptionsPositionalArgumentsAndBadValues() {
        assertThatThrownBy(() -> new BrookMain().parse("--prot", "1")).hasMessageContaining("Unknown option: '--prot'");
        assertThatThrownBy(() -> new BrookMain().parse("extra")).hasMessageContaining("Unmatched argument: 'extra'");
        assertThatThrownBy(() -> new BrookMain().parse("--port")).hasMessageContaining("Missing required parameter");
        assertThatThrownBy(() -> new BrookMain().parse("--port", "x")).hasMessageContaining("is not an int");
        assertThatThrownBy(() -> new BrookMain().parse("--override", "novalue")).hasMessageContaining("KEY=VALUE");
        assertThatThrownBy(() -> new BrookMain().parse("--override", "=v")).hasMessageContaining("KEY=VALUE");
        assertThatThrownBy(() -> new BrookMain().parse("--help=yes")).hasMessageContaining("takes no value");
    }

    @Test
    void shouldListEveryOptionInItsUsage() {
        assertThat(BrookMain.USAGE).contains("--config", "--port", "--data-dir", "--override", "--help", "--version")
                .doesNotContain("--exit-after-start");
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldResolveTheConfigProvidersOfItsConfigFileBeforeReadingAnySetting(@TempDir Path tmp) throws Exception {
        Path data = tmp.resolve("from-the-provider");
        Path secrets = Files.writeString(tmp.resolve("secrets.properties"), "data.dir=" + data + "\n");
        Path config = Files.writeString(tmp.resolve("server.properties"), String.join("\n",
                "listeners=PLAINTEXT://127.0.0.1:0",
                "brook.http.listener=none",
                "config.providers=file",
                "config.providers.file.class=org.apache.kafka.common.config.provider.FileConfigProvider",
                "log.dirs=${file:" + secrets + ":data.dir}", ""));

        assertThat(new BrookMain().parse("--config", config.toString(), "--exit-after-start").call()).isZero();
        assertThat(data.resolve("meta").resolve("meta.properties")).exists();
        assertThat(tmp.resolve("${file:" + secrets + ":data.dir}")).doesNotExist();

        Files.writeString(config, "config.providers=vault\nconfig.providers.vault.class=com.example.Vault\n");
        assertThat(new BrookMain().parse("--config", config.toString(), "--exit-after-start").call()).isEqualTo(2);
    }
}
