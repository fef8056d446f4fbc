package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A TLS 1.2 client that starts a second handshake on its connection (a renegotiation) is closed,
 * on either engine: each renegotiation would cost the broker a full handshake's CPU.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TlsRenegotiationTest {

    /** ApiVersions v0, correlation id 1, client id absent. */
    private static final byte[] API_VERSIONS = {0, 0, 0, 10, 0, 18, 0, 0, 0, 0, 0, 1, -1, -1};

    @TempDir
    Path dir;

    @ParameterizedTest(name = "brook.ssl.engine={0}")
    @ValueSource(strings = {"jdk", "openssl"})
    void aRenegotiationClosesTheConnection(String engine) throws Exception {
        try (Brook brook = broker(engine);
                SSLSocket s = connect(trustingAnyServer(), brook.bootstrapServers("SSL"))) {
            DataInputStream in = new DataInputStream(s.getInputStream());
            s.getOutputStream().write(API_VERSIONS);
            s.getOutputStream().flush();
            in.readFully(new byte[in.readInt()]);

            assertThat(renegotiatedAndAnswered(s, in)).as("served after a renegotiation").isFalse();
        }
    }

    @Test
    void theFirstHandshakeAndTrafficAfterItAreNotMistakenForOne() throws Exception {
        try (Brook brook = broker("jdk")) {
            SSLContext client = trustingAnyServer();
            // the second connection resumes the first one's session: an abbreviated handshake,
            // whose last message the client sends
            byte[] firstSession = null;
            for (int c = 0; c < 2; c++) {
                try (SSLSocket s = connect(client, brook.bootstrapServers("SSL"))) {
                    if (firstSession == null) {
                        firstSession = s.getSession().getId();
                    } else {
                        assertThat(s.getSession().getId()).as("resumed").isEqualTo(firstSession);
                    }
                    DataInputStream in = new DataInputStream(s.getInputStream());
                    for (int i = 0; i < 50; i++) { // several records, some in one read
                        s.getOutputStream().write(API_VERSIONS);
                        s.getOutputStream().write(API_VERSIONS);
                        s.getOutputStream().flush();
                        in.readFully(new byte[in.readInt()]);
                        in.readFully(new byte[in.readInt()]);
                    }
                }
            }
        }
    }

    /** A broker with one SSL listener on {@code engine}, its key store made in the test's folder. */
    private Brook broker(String engine) throws Exception {
        Path store = TestKeyStores.create(dir, "broker", "CN=localhost", "dns:localhost,ip:127.0.0.1");
        return Brook.builder().dataDir(dir.resolve("data"))
                .config("listeners", "SSL://127.0.0.1:0")
                .config("brook.ssl.engine", engine)
                .config(TestKeyStores.serving(store))
                .start();
    }

    /** Starts a second handshake, then asks again: true only when the broker answered. */
    private static boolean renegotiatedAndAnswered(SSLSocket s, DataInputStream in) {
        try {
            s.startHandshake();
            s.getOutputStream().write(API_VERSIONS);
            s.getOutputStream().flush();
            return in.readInt() > 0;
        } catch (IOException closed) {
            return false;
        }
    }

    private static SSLContext trustingAnyServer() throws Exception {
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, new TrustManager[] {TestKeyStores.trustingAnyServer()}, null);
        return ctx;
    }

    /** TLS 1.2 only (TLS 1.3 has no renegotiation). */
    private static SSLSocket connect(SSLContext ctx, String hostPort) throws Exception {
        String[] hp = hostPort.split(":");
        SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket(hp[0], Integer.parseInt(hp[1]));
        s.setEnabledProtocols(new String[] {"TLSv1.2"});
        s.setSoTimeout(10_000);
        s.startHandshake();
        return s;
    }
}
