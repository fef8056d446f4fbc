package io.brook.server.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The TLS versions a listener offers for its {@code ssl.enabled.protocols} and {@code ssl.cipher.suites}. */
class TlsProtocolsTest {

    private static final List<String> BOTH = List.of("TLSv1.2", "TLSv1.3");

    @Test
    void obsoleteVersionsAreNeverOffered() {
        assertThat(TlsProtocols.enabled(List.of("TLSv1", "TLSv1.1", "TLSv1.2"), null, "L")).containsExactly("TLSv1.2");
        assertThat(TlsProtocols.enabled(List.of("SSLv3", "tlsv1.1", "TLSv1.3"), null, "L")).containsExactly("TLSv1.3");
        assertThatThrownBy(() -> TlsProtocols.enabled(List.of("TLSv1.1"), null, "L"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("TLSv1.2");
    }

    @Test
    void theCipherSuitesDecideWhichVersionsRemain() {
        assertThat(TlsProtocols.enabled(BOTH, null, "L")).isEqualTo(BOTH);
        assertThat(TlsProtocols.enabled(BOTH, List.of("TLS_AES_128_GCM_SHA256"), "L")).containsExactly("TLSv1.3");
        assertThat(TlsProtocols.enabled(BOTH, List.of("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"), "L"))
                .containsExactly("TLSv1.2");
        assertThat(TlsProtocols.enabled(BOTH, List.of("ECDHE-RSA-AES128-GCM-SHA256", "TLS_CHACHA20_POLY1305_SHA256"),
                "L")).isEqualTo(BOTH);
        assertThatThrownBy(() -> TlsProtocols.enabled(List.of("TLSv1.2"), List.of("TLS_AES_256_GCM_SHA384"), "L"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no suite");
    }
}
