package io.brook.server.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.security.TlsSettings;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslProvider;
import java.util.Locale;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** Which TLS engine a listener gets for each {@code brook.ssl.engine}, and that OpenSSL loads where Brook ships it. */
class TlsEngineChoiceTest {

    @Test
    void openSslWhenAskedForAndLoadableElseTheJdks() {
        assertThat(TlsPipeline.provider(TlsSettings.Engine.OPENSSL, true)).isEqualTo(SslProvider.OPENSSL);
        assertThat(TlsPipeline.provider(TlsSettings.Engine.OPENSSL, false)).isEqualTo(SslProvider.JDK);
        assertThat(TlsPipeline.provider(TlsSettings.Engine.JDK, true)).isEqualTo(SslProvider.JDK);
        assertThat(TlsPipeline.provider(TlsSettings.Engine.JDK, false)).isEqualTo(SslProvider.JDK);
    }

    /** The server depends on tcnative's linux-x86_64 jar: on that platform the default engine must really be OpenSSL. */
    @Test
    void theBundledOpenSslLoadsOnLinuxX8664() {
        Assumptions.assumeTrue(System.getProperty("os.name").toLowerCase(Locale.ROOT).startsWith("linux")
                && System.getProperty("os.arch").equals("amd64"), "tcnative is bundled for linux-x86_64 only");
        assertThat(OpenSsl.isAvailable()).as("OpenSSL unavailable: %s", OpenSsl.unavailabilityCause()).isTrue();
        assertThat(OpenSsl.supportsKeyManagerFactory()).isTrue();
    }
}
