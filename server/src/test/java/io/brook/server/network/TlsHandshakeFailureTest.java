package io.brook.server.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslHandshakeTimeoutException;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

/**
 * Which failed TLS handshakes are logged as failed authentications: those the client's bytes or
 * credentials caused, not a client that closed or reset its connection before the handshake
 * ended (as a producer closing an unused connection does).
 */
class TlsHandshakeFailureTest {

    @Test
    void aClientThatWentAwayIsNoFailedAuthentication() {
        assertThat(TlsPipeline.handshakeFailure(null)).isNull();
        assertThat(TlsPipeline.handshakeFailure(new ClosedChannelException())).isNull();
        assertThat(TlsPipeline.handshakeFailure(new IOException("Connection reset by peer"))).isNull();
    }

    @Test
    void badBytesRefusedCertificatesAndTimeOutsAre() {
        assertThat(TlsPipeline.handshakeFailure(new NotSslRecordException("not an SSL/TLS record: 00000a1b")))
                .isEqualTo("not a TLS client"); // never the client's bytes
        assertThat(TlsPipeline.handshakeFailure(new SSLHandshakeException("Received fatal alert: bad_certificate")))
                .isEqualTo("SSLHandshakeException: Received fatal alert: bad_certificate");
        assertThat(TlsPipeline.handshakeFailure(new SslHandshakeTimeoutException("handshake timed out after 10000ms")))
                .startsWith("SslHandshakeTimeoutException");
    }

    @Test
    void aGeneralEngineFailureNamesTheRefusalOfTheCertificateBehindIt() {
        SSLHandshakeException general = new SSLHandshakeException("General OpenSslEngine problem");
        general.initCause(new java.security.cert.CertificateException("PKIX path building failed"));
        assertThat(TlsPipeline.handshakeFailure(general))
                .isEqualTo("SSLHandshakeException: General OpenSslEngine problem (PKIX path building failed)");
    }
}
