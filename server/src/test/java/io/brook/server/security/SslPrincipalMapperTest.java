package io.brook.server.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SslPrincipalMapperTest {

    @Test
    void mapsWithKafkasRuleSyntax() {
        SslPrincipalMapper m = SslPrincipalMapper.parse(
                "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/,RULE:^CN=(.*?),OU=(.*?),O=(.*?)$/$1@$2/L, DEFAULT");
        assertThat(m.map("CN=kafka-producer,OU=ServiceUsers,O=Org")).isEqualTo("kafka-producer");
        assertThat(m.map("CN=Alice,OU=Sales,O=Org")).isEqualTo("alice@sales");
        assertThat(m.map("CN=other")).isEqualTo("CN=other");
        assertThat(SslPrincipalMapper.parse("RULE:^CN=(.*)$/$1/U").map("CN=bob")).isEqualTo("BOB");
        assertThat(SslPrincipalMapper.parse("RULE:^CN=(.*)$/$1/").map("OU=x")).as("no rule applies").isNull();
        assertThat(SslPrincipalMapper.parse(null).map("CN=a,O=b")).isEqualTo("CN=a,O=b");
    }

    @Test
    void refusesMalformedRules() {
        assertThatThrownBy(() -> SslPrincipalMapper.parse("RULE:abc")).hasMessageContaining("ssl.principal.mapping.rules");
        assertThatThrownBy(() -> SslPrincipalMapper.parse("SOMETHING")).hasMessageContaining("RULE:");
    }
}
