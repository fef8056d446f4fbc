package io.brook.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The broker settings changed at run time: both scopes, persisted, and what may change. */
class DynamicBrokerConfigTest {

    @TempDir
    Path meta;

    @Test
    void persistsBothScopesAndThisBrokersWins() throws IOException {
        DynamicBrokerConfig d = DynamicBrokerConfig.open(meta);
        assertThat(d.effective()).isEmpty();
        AtomicReference<Map<String, String>> applied = new AtomicReference<>();
        d.replace(true, Map.of("log.retention.ms", "1000", "message.max.bytes", "2000"), applied::set);
        d.replace(false, Map.of("log.retention.ms", "5000"), applied::set);
        assertThat(applied.get()).containsEntry("log.retention.ms", "5000").containsEntry("message.max.bytes", "2000");
        assertThat(d.source("log.retention.ms")).isEqualTo(DynamicBrokerConfig.SOURCE_DYNAMIC_BROKER);
        assertThat(d.source("message.max.bytes")).isEqualTo(DynamicBrokerConfig.SOURCE_DYNAMIC_DEFAULT_BROKER);
        assertThat(d.source("log.segment.bytes")).isZero();

        DynamicBrokerConfig reopened = DynamicBrokerConfig.open(meta);
        assertThat(reopened.broker()).isEqualTo(Map.of("log.retention.ms", "5000"));
        assertThat(reopened.clusterDefault()).isEqualTo(Map.of("log.retention.ms", "1000", "message.max.bytes", "2000"));
    }

    @Test
    void refusesKeysThatCannotChangeAndValuesThatDoNotParse() {
        assertThat(DynamicBrokerConfig.invalid("log.retention.ms", "60000")).isNull();
        assertThat(DynamicBrokerConfig.invalid("num.io.threads", "4")).contains("Cannot update these configs dynamically");
        assertThat(DynamicBrokerConfig.invalid("no.such.key", "1")).as("a custom setting, kept as Kafka keeps it").isNull();
        assertThat(DynamicBrokerConfig.invalid("no.such.key", null)).contains("Null value");
        assertThat(DynamicBrokerConfig.invalid("log.retention.ms", "soon")).isNotNull();
    }

    @Test
    void aFileWithAKeyThatCannotChangeStopsTheStart() throws IOException {
        Files.writeString(meta.resolve(DynamicBrokerConfig.FILE), "broker.num.io.threads=4\n", StandardCharsets.UTF_8);
        assertThatThrownBy(() -> DynamicBrokerConfig.open(meta)).isInstanceOf(IOException.class)
                .hasMessageContaining("num.io.threads");
    }

    @Test
    void aListenersKeyStoreMayChangeOnlyWithItsListenerPrefixAndOnlyForThisBroker() throws IOException {
        assertThat(DynamicBrokerConfig.invalid("listener.name.ssl.ssl.keystore.location", "/k.p12")).isNull();
        assertThat(DynamicBrokerConfig.invalid("listener.name.INTERNAL.ssl.truststore.password", "x")).isNull();
        assertThat(DynamicBrokerConfig.invalid("ssl.keystore.location", "/k.p12"))
                .contains("only per-listener using the listener prefix");
        assertThat(DynamicBrokerConfig.invalid("listener.name.ssl.ssl.client.auth", "required")).isNotNull();
        assertThat(DynamicBrokerConfig.invalidInDefaultScope("listener.name.ssl.ssl.keystore.location"))
                .contains("broker id must be specified");
        assertThat(DynamicBrokerConfig.invalidInDefaultScope("log.retention.ms")).isNull();
        assertThat(ListenerTlsKeys.listener("listener.name.ssl.ssl.keystore.location")).isEqualTo("SSL");
        assertThat(ListenerTlsKeys.sensitive("listener.name.ssl.ssl.keystore.password")).isTrue();
        assertThat(ListenerTlsKeys.sensitive("listener.name.ssl.ssl.keystore.location")).isFalse();

        Files.writeString(meta.resolve(DynamicBrokerConfig.FILE),
                "default.listener.name.ssl.ssl.keystore.location=/k.p12\n", StandardCharsets.UTF_8);
        assertThatThrownBy(() -> DynamicBrokerConfig.open(meta)).isInstanceOf(IOException.class)
                .hasMessageContaining("broker id must be specified");
        Files.writeString(meta.resolve(DynamicBrokerConfig.FILE),
                "broker.listener.name.ssl.ssl.keystore.location=/k.p12\n", StandardCharsets.UTF_8);
        assertThat(DynamicBrokerConfig.open(meta).broker()).containsEntry("listener.name.ssl.ssl.keystore.location",
                "/k.p12");
    }
}
