package io.brook.server.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.config.SecurityConfigKeys.Entry;
import io.brook.server.config.SecurityConfigKeys.Type;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Which security settings a broker's DescribeConfigs lists, and how each is typed and hidden. */
class SecurityConfigKeysTest {

    private static Entry find(List<Entry> entries, String name) {
        return entries.stream().filter(e -> e.name().equals(name)).findFirst().orElse(null);
    }

    @Test
    void secretsAreListedWithoutTheirValueAndOtherSettingsWithTheirsOrTheDefault() {
        Map<String, String> written = new TreeMap<>(Map.of(
                "ssl.keystore.password", "store-secret",
                "ssl.client.auth", "required",
                "sasl.enabled.mechanisms", "SCRAM-SHA-512"));
        List<Entry> entries = SecurityConfigKeys.describe(written);

        Entry password = find(entries, "ssl.keystore.password");
        assertThat(password.value()).isNull();
        assertThat(password.sensitive()).isTrue();
        assertThat(password.explicit()).isTrue();
        assertThat(password.type()).isEqualTo(Type.PASSWORD);

        assertThat(find(entries, "ssl.client.auth")).isEqualTo(new Entry("ssl.client.auth", "required", Type.STRING,
                false, true, "none", find(entries, "ssl.client.auth").doc()));
        Entry unset = find(entries, "ssl.enabled.protocols");
        assertThat(unset.value()).isEqualTo("TLSv1.2,TLSv1.3");
        assertThat(unset.explicit()).isFalse();
        assertThat(entries).extracting(Entry::value).doesNotContain("store-secret");
        assertThat(entries).allSatisfy(e -> assertThat(e.doc()).as(e.name()).isNotBlank());
    }

    @Test
    void settingsKafkaDoesNotDefineAreListedOnlyWhenSetAndThenAsSecrets() {
        assertThat(SecurityConfigKeys.describe(Map.of())).extracting(Entry::name)
                .doesNotContain("super.users", "allow.everyone.if.no.acl.found")
                .contains("ssl.client.auth", "brook.ssl.engine");
        Entry users = find(SecurityConfigKeys.describe(Map.of("super.users", "User:admin")), "super.users");
        assertThat(users.value()).isNull();
        assertThat(users.sensitive()).isTrue();
    }

    @Test
    void aListenerOverrideIsTypedAsTheKeyItOverridesAndAnUnknownOneIsASecret() {
        List<Entry> entries = SecurityConfigKeys.describe(new TreeMap<>(Map.of(
                "listener.name.sasl_ssl.plain.sasl.jaas.config", "PlainLoginModule required user_a=\"x\";",
                "listener.name.ssl.ssl.client.auth", "requested",
                "listener.name.ssl.ssl.keystore.location", "/etc/brook/broker.p12",
                "listener.name.ssl.something.else", "maybe-a-secret")));

        Entry jaas = find(entries, "listener.name.sasl_ssl.plain.sasl.jaas.config");
        assertThat(jaas.value()).isNull();
        assertThat(jaas.sensitive()).isTrue();
        assertThat(find(entries, "listener.name.ssl.ssl.client.auth").value()).isEqualTo("requested");
        assertThat(find(entries, "listener.name.ssl.ssl.keystore.location").type()).isEqualTo(Type.STRING);
        Entry unknown = find(entries, "listener.name.ssl.something.else");
        assertThat(unknown.value()).isNull();
        assertThat(unknown.sensitive()).isTrue();
        assertThat(SecurityConfigKeys.doc("listener.name.ssl.ssl.client.auth"))
                .isEqualTo(SecurityConfigKeys.doc("ssl.client.auth")).isNotBlank();
        assertThat(SecurityConfigKeys.doc("listener.name.ssl.something.else")).isEmpty();
    }
}
