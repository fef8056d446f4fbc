package io.brook.server.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.ssl.OpenSslCertificateException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import org.junit.jupiter.api.Test;

/**
 * Which refusals of a client certificate the OpenSSL engine gets as they are (it has their own
 * alerts) and which as {@code certificate_unknown} ({@code ClientCertificateAlertTest} sends them
 * over the wire).
 */
class ClientCertificateTrustTest {

    @Test
    void anExpiredOrRevokedCertificateKeepsItsOwnAlert() {
        CertificateException expired = new CertificateException("PKIX path validation failed",
                new CertPathValidatorException("validity check failed", new CertificateExpiredException(), null, -1,
                        CertPathValidatorException.BasicReason.EXPIRED));
        assertThat(ClientCertificateTrust.refusal(expired)).isSameAs(expired);
        CertificateException revoked = new CertificateException("PKIX path validation failed",
                new CertPathValidatorException("revoked", null, null, -1,
                        CertPathValidatorException.BasicReason.REVOKED));
        assertThat(ClientCertificateTrust.refusal(revoked)).isSameAs(revoked);
    }

    @Test
    void anyOtherRefusalIsACertificateUnknownWithItsMessage() {
        CertificateException unknownCa = new CertificateException("PKIX path building failed: unable to find valid"
                + " certification path to requested target");
        CertificateException r = ClientCertificateTrust.refusal(unknownCa);
        assertThat(r).isInstanceOf(OpenSslCertificateException.class).hasMessage(unknownCa.getMessage())
                .hasCause(unknownCa);
        assertThat(((OpenSslCertificateException) r).errorCode()).isEqualTo(ClientCertificateTrust.CERTIFICATE_UNKNOWN);
    }
}
