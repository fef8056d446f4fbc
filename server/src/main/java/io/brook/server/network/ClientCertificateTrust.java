package io.brook.server.network;

import io.netty.handler.ssl.OpenSslCertificateException;
import java.net.Socket;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.CertificateRevokedException;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * A listener's trust manager as the OpenSSL engine uses it: the JDK's check of a client's
 * certificate, with a refusal the engine can turn into the right TLS alert. The engine maps the
 * exceptions it knows (expired, not yet valid, revoked) to their alerts and every other one to
 * {@code internal_error}, which tells a client with a certificate from an unknown CA that the
 * broker broke. Here such a refusal becomes {@code certificate_unknown}, the alert the JDK's
 * engine (and so Kafka) sends for a certificate it does not trust; the refusal's own message (for
 * an unknown CA: the PKIX path that could not be built) is kept as the exception's, for the log.
 * Checks of a server's certificate (never asked of a listener) go to the JDK's unchanged.
 */
final class ClientCertificateTrust extends X509ExtendedTrustManager {

    /**
     * A verification error BoringSSL answers with {@code certificate_unknown}: chosen for that
     * alert, not for its name (OpenSSL's X509_V_ERR_SUBJECT_ISSUER_MISMATCH, which BoringSSL maps
     * to no alert of its own). {@code X509_V_ERR_CERT_UNTRUSTED} would send {@code bad_certificate};
     * an unspecified error, {@code internal_error}.
     */
    static final int CERTIFICATE_UNKNOWN = 29;

    private final X509ExtendedTrustManager jdk;

    private ClientCertificateTrust(X509ExtendedTrustManager jdk) {
        this.jdk = jdk;
    }

    /** The trust manager of {@code factory} (its first for X.509 certificates), wrapped. */
    static TrustManager of(TrustManagerFactory factory) {
        for (TrustManager tm : factory.getTrustManagers()) {
            if (tm instanceof X509ExtendedTrustManager x) {
                return new ClientCertificateTrust(x);
            }
        }
        throw new IllegalArgumentException("the trust manager factory " + factory.getAlgorithm()
                + " has no X.509 trust manager");
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        try {
            jdk.checkClientTrusted(chain, authType, engine);
        } catch (CertificateException e) {
            throw refusal(e);
        }
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        try {
            jdk.checkClientTrusted(chain, authType, socket);
        } catch (CertificateException e) {
            throw refusal(e);
        }
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        try {
            jdk.checkClientTrusted(chain, authType);
        } catch (CertificateException e) {
            throw refusal(e);
        }
    }

    /** {@code e} itself when the engine has an alert for it; else the same refusal as {@code certificate_unknown}. */
    static CertificateException refusal(CertificateException e) {
        if (e instanceof OpenSslCertificateException || hasOwnAlert(e)) {
            return e;
        }
        return new OpenSslCertificateException(e.getMessage(), e, CERTIFICATE_UNKNOWN);
    }

    private static boolean hasOwnAlert(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof CertificateExpiredException || t instanceof CertificateNotYetValidException
                    || t instanceof CertificateRevokedException) {
                return true;
            }
            if (t instanceof CertPathValidatorException v
                    && (v.getReason() == CertPathValidatorException.BasicReason.EXPIRED
                    || v.getReason() == CertPathValidatorException.BasicReason.NOT_YET_VALID
                    || v.getReason() == CertPathValidatorException.BasicReason.REVOKED)) {
                return true;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        jdk.checkServerTrusted(chain, authType, engine);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        jdk.checkServerTrusted(chain, authType, socket);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        jdk.checkServerTrusted(chain, authType);
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return jdk.getAcceptedIssuers();
    }
}
