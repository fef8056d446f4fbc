package io.brook.server.cluster.interbroker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.server.Brook;
import io.brook.server.TestKeyStores;
import io.brook.server.config.SecurityProtocol;
import io.brook.server.security.InterBrokerLogin;
import io.brook.server.security.TlsSettings;
import io.brook.wire.message.MetadataRequest;
import io.brook.wire.message.MetadataResponse;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import io.brook.testkit.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The inter-broker client logging in as Kafka's brokers do, against an embedded Brook with a
 * SASL_SSL listener (SCRAM-SHA-512 and PLAIN, the StandardAuthorizer, user {@code broker} a super
 * user): a correct login is served, a wrong password or a certificate the trust store does not hold
 * fails the request with the reason, a host name the certificate does not name fails unless
 * endpoint identification is off. The principal is the SASL user: Metadata for the cluster's
 * topics is authorized as {@code User:broker}. A trust store replaced on disk, or by a dynamic
 * update of the listener, serves the next connection.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class InterBrokerLoginClientTest {

    private static final InterBrokerSettings FAST = new InterBrokerSettings(5_000, 2, 1_000, 20, 200, 2_000);

    @TempDir
    static Path dir;

    private static EventLoopGroup loops;
    private static Brook brook;
    private static Path keys;
    private static Path trust;
    private static Path otherTrust;

    @BeforeAll
    static void start() throws Exception {
        loops = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        keys = TestKeyStores.create(dir, "node", "CN=node", "IP:127.0.0.1");
        trust = TestKeyStores.trustStore(dir, "trust", keys);
        otherTrust = TestKeyStores.trustStore(dir, "other-trust", TestKeyStores.create(dir, "other", "CN=other",
                "IP:127.0.0.1"));
        brook = Brook.builder()
                .config("listeners", "SASL_SSL://127.0.0.1:0")
                .config("ssl.keystore.type", "PKCS12")
                .config("ssl.keystore.location", keys.toString())
                .config("ssl.keystore.password", TestKeyStores.PASSWORD)
                .config("sasl.enabled.mechanisms", "SCRAM-SHA-512,PLAIN")
                .config("listener.name.sasl_ssl.plain.sasl.jaas.config",
                        "org.apache.kafka.common.security.plain.PlainLoginModule required user_broker=\"plain-secret\";")
                .config("brook.sasl.scram.bootstrap.credentials", "SCRAM-SHA-512=[name=broker,password=broker-secret]")
                .config("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer")
                .config("super.users", "User:broker")
                .start();
        brook.createTopic("only-for-brokers", 1);
    }

    @AfterAll
    static void stop() throws Exception {
        brook.close();
        loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    private static InterBrokerLogin login(String mechanism, String password, Path trustStore, boolean verifyHost,
            String host) {
        Map<String, String> s = new HashMap<>();
        s.put("listeners", "SASL_SSL://" + host + ":0");
        // this node's own listener: the key store it serves with, and the trust store it checks the others with
        s.put("ssl.keystore.type", "PKCS12");
        s.put("ssl.keystore.location", keys.toString());
        s.put("ssl.keystore.password", TestKeyStores.PASSWORD);
        s.put("ssl.truststore.type", "PKCS12");
        s.put("ssl.truststore.location", trustStore.toString());
        s.put("ssl.truststore.password", TestKeyStores.PASSWORD);
        s.put("ssl.endpoint.identification.algorithm", verifyHost ? "https" : "");
        s.put("sasl.enabled.mechanisms", "SCRAM-SHA-512,PLAIN");
        s.put("sasl.mechanism.inter.broker.protocol", mechanism);
        String module = mechanism.equals("PLAIN") ? "org.apache.kafka.common.security.plain.PlainLoginModule"
                : "org.apache.kafka.common.security.scram.ScramLoginModule";
        s.put("listener.name.sasl_ssl." + mechanism.toLowerCase(java.util.Locale.ROOT) + ".sasl.jaas.config",
                module + " required username=\"broker\" password=\"" + password + "\";");
        return InterBrokerLogin.of(s, "SASL_SSL", SecurityProtocol.SASL_SSL);
    }

    /** Metadata of every topic, through a client that logs in with {@code login} to {@code host}. */
    @Test
    void aTrustStoreReplacedOnDiskServesTheNextConnection() throws Exception {
        Path replaced = dir.resolve("replaced-trust.p12");
        Files.copy(otherTrust, replaced);
        InetSocketAddress address = new InetSocketAddress(InetAddress.getByAddress("127.0.0.1",
                new byte[] {127, 0, 0, 1}), brook.port());
        try (InterBrokerClient c = new InterBrokerClient(loops, NioSocketChannel.class, id -> address, "broker-9",
                FAST, login("SCRAM-SHA-512", "broker-secret", replaced, true, "127.0.0.1"))) {
            assertThatThrownBy(() -> c.send(1, new MetadataRequest().topics(null), (short) 12, MetadataResponse::read)
                    .get(30, TimeUnit.SECONDS)).cause().hasMessageContaining("TLS handshake");
            // a new file under the same name (as an operator renews a trust store), with a later time
            Path fresh = dir.resolve("fresh-trust.p12");
            Files.copy(trust, fresh);
            Files.setLastModifiedTime(fresh, FileTime.fromMillis(Files.getLastModifiedTime(replaced).toMillis() + 10_000));
            Files.move(fresh, replaced, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            // a request made after the back-off reconnects with the new store
            Await.until("a connection with the new trust store", java.time.Duration.ofSeconds(20),
                    () -> servesMetadata(c));
        }
    }

    @Test
    void storesChangedByADynamicUpdateOfTheListenerServeTheNextConnection() throws Exception {
        InetSocketAddress address = new InetSocketAddress(InetAddress.getByAddress("127.0.0.1",
                new byte[] {127, 0, 0, 1}), brook.port());
        InterBrokerLogin login = login("SCRAM-SHA-512", "broker-secret", otherTrust, true, "127.0.0.1");
        // the inter-broker listener's settings as a dynamic update leaves them: first a trust store
        // that does not hold the other node's certificate, then one that does
        AtomicReference<TlsSettings> listener = new AtomicReference<>(login.tls());
        try (InterBrokerClient c = new InterBrokerClient(loops, NioSocketChannel.class, id -> address, "broker-9",
                FAST, login, listener::get)) {
            assertThatThrownBy(() -> c.send(1, new MetadataRequest().topics(null), (short) 12, MetadataResponse::read)
                    .get(30, TimeUnit.SECONDS)).cause().hasMessageContaining("TLS handshake");
            listener.set(login("SCRAM-SHA-512", "broker-secret", trust, true, "127.0.0.1").tls());
            Await.until("a connection with the updated trust store", java.time.Duration.ofSeconds(20),
                    () -> servesMetadata(c));
        }
    }

    /** Whether a Metadata request through {@code c} is answered with the cluster's topics. */
    private static boolean servesMetadata(InterBrokerClient c) {
        try {
            return !c.send(1, new MetadataRequest().topics(null), (short) 12, MetadataResponse::read)
                    .get(10, TimeUnit.SECONDS).topics().isEmpty();
        } catch (ExecutionException e) {
            return false;
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static MetadataResponse metadata(InterBrokerLogin login, String host) throws Exception {
        // the loopback address under the name {@code host}: what the certificate is checked against
        InetSocketAddress address = new InetSocketAddress(InetAddress.getByAddress(host, new byte[] {127, 0, 0, 1}),
                brook.port());
        try (InterBrokerClient c = new InterBrokerClient(loops, NioSocketChannel.class, id -> address, "broker-9",
                FAST, login)) {
            return c.send(1, new MetadataRequest().topics(null), (short) 12, MetadataResponse::read)
                    .get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void logsInWithScramOverTlsAsItsSaslUser() throws Exception {
        MetadataResponse m = metadata(login("SCRAM-SHA-512", "broker-secret", trust, true, "127.0.0.1"), "127.0.0.1");
        assertThat(m.topics()).extracting(MetadataResponse.MetadataResponseTopic::name).contains("only-for-brokers");
    }

    @Test
    void logsInWithPlain() throws Exception {
        MetadataResponse m = metadata(login("PLAIN", "plain-secret", trust, true, "127.0.0.1"), "127.0.0.1");
        assertThat(m.topics()).extracting(MetadataResponse.MetadataResponseTopic::name).contains("only-for-brokers");
    }

    @Test
    void aWrongPasswordFailsTheRequestWithTheNodesRefusal() {
        assertThatThrownBy(() -> metadata(login("SCRAM-SHA-512", "wrong", trust, true, "127.0.0.1"), "127.0.0.1"))
                .isInstanceOf(ExecutionException.class).cause().isInstanceOf(InterBrokerException.class)
                .hasMessageContaining("refused the login of broker").hasMessageNotContaining("wrong");
    }

    @Test
    void aCertificateTheTrustStoreDoesNotHoldFailsTheHandshake() {
        assertThatThrownBy(() -> metadata(login("SCRAM-SHA-512", "broker-secret", otherTrust, false, "127.0.0.1"),
                "127.0.0.1")).cause().isInstanceOf(InterBrokerException.class).hasMessageContaining("TLS handshake");
    }

    @Test
    void aHostNameTheCertificateDoesNotNameFailsUnlessEndpointIdentificationIsOff() throws Exception {
        // the certificate names 127.0.0.1 only, not node.example
        assertThatThrownBy(() -> metadata(login("SCRAM-SHA-512", "broker-secret", trust, true, "node.example"),
                "node.example")).cause().isInstanceOf(InterBrokerException.class).hasMessageContaining("TLS handshake");
        assertThat(metadata(login("SCRAM-SHA-512", "broker-secret", trust, false, "node.example"), "node.example").topics())
                .isNotEmpty();
    }
}
