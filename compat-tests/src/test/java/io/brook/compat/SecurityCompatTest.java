package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.server.Brook;
import io.brook.testkit.Await;
import io.brook.testkit.TestCertificates;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialDeletion;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.admin.UserScramCredentialsDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.errors.ResourceNotFoundException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.errors.UnacceptableCredentialException;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.SaslAuthenticateRequest;
import org.apache.kafka.common.requests.SaslAuthenticateResponse;
import org.apache.kafka.common.requests.SaslHandshakeRequest;
import org.apache.kafka.common.requests.SaslHandshakeResponse;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The stock Java clients over Brook's TLS and SASL listeners: SSL beside PLAINTEXT with each
 * listener advertising itself, mutual TLS, key stores as PKCS12, JKS and inline PEM, SASL/PLAIN
 * over TLS, SASL/SCRAM users managed with the admin client, OAUTHBEARER with unsecured tokens
 * (whose expiry bounds the session, which a client renews by re-authenticating with fresh ones),
 * client authentication requested, protocols and cipher suites, and a key store replaced while the
 * broker runs. Each TLS test runs with both engines of {@code brook.ssl.engine} (OpenSSL and the
 * JDK's; a key the reference Kafka does not read). Certificates are made by keytool for each run
 * (see {@link TestCertificates}). Each test describes its broker's configuration once; the
 * embedded Brook or, under run-against-kafka.sh, the reference Kafka is started with it ({@link
 * SecuredBroker}).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SecurityCompatTest {

    private static final String PW = TestCertificates.PASSWORD;
    private static final String JAAS = "org.apache.kafka.common.security.plain.PlainLoginModule required"
            + " username=\"admin\" password=\"admin-secret\" user_admin=\"admin-secret\" user_alice=\"alice-secret\";";

    @TempDir
    static Path dir;
    private static TestCertificates certs;
    private static Path broker;
    private static Path client;
    private static Path trustBroker;

    @TempDir
    Path data;

    @BeforeAll
    static void makeCertificates() throws Exception {
        certs = new TestCertificates(dir);
        broker = certs.keyStore("broker", "localhost");
        client = certs.keyStore("client", "alice");
        trustBroker = certs.trustStore("trust-broker", broker);
    }

    /** Broker properties from key, value pairs. */
    private static Map<String, String> props(String... keysAndValues) {
        Map<String, String> p = new HashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            p.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return p;
    }

    private static Map<String, Object> sslClient(Path trustStore) {
        Map<String, Object> p = new HashMap<>();
        p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SSL");
        p.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, trustStore.toString());
        p.put(SslConfigs.SSL_TRUSTSTORE_PASSWORD_CONFIG, PW);
        p.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PKCS12");
        return p;
    }

    private static Admin admin(String bootstrap, Map<String, Object> extra) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000);
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
        p.putAll(extra);
        return Admin.create(p);
    }

    private static Collection<Node> nodes(String bootstrap, Map<String, Object> extra) throws Exception {
        try (Admin a = admin(bootstrap, extra)) {
            return a.describeCluster().nodes().get(30, TimeUnit.SECONDS);
        }
    }

    private static int port(String hostPort) {
        return Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1));
    }

    /** Produces {@code count} records of {@code size} bytes and reads them back, all over {@code extra}'s security. */
    private static void roundTrip(String bootstrap, Map<String, Object> extra, int count, int size) throws Exception {
        roundTrip(bootstrap, extra, count, size, 1);
    }

    /** The same over {@code partitions} partitions (record i in partition i mod partitions), read back together. */
    private static void roundTrip(String bootstrap, Map<String, Object> extra, int count, int size, int partitions)
            throws Exception {
        String topic = "sec-" + System.nanoTime();
        try (Admin a = admin(bootstrap, extra)) {
            a.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        Properties pp = new Properties();
        pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        pp.putAll(extra);
        String value = "v".repeat(size);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp)) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(topic, i % partitions, Integer.toString(i), value));
            }
            producer.flush();
        }
        Properties cp = new Properties();
        cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        cp.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        cp.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        cp.put(ConsumerConfig.GROUP_ID_CONFIG, "g-" + topic);
        cp.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        cp.putAll(extra);
        List<ConsumerRecord<String, String>> got = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cp)) {
            List<TopicPartition> all = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                all.add(new TopicPartition(topic, p));
            }
            consumer.assign(all);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (got.size() < count && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(got::add);
            }
            consumer.commitSync();
        }
        assertThat(got).hasSize(count);
        got.sort(java.util.Comparator.comparingInt(r -> Integer.parseInt(r.key())));
        for (int i = 0; i < count; i++) {
            assertThat(got.get(i).key()).isEqualTo(Integer.toString(i));
            assertThat(got.get(i).value()).isEqualTo(value);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"openssl", "jdk"})
    void sslListenerServesClientsBesidePlaintextAndEachAdvertisesItself(String engine) throws Exception {
        try (SecuredBroker b = SecuredBroker.start(data, props(
                "brook.ssl.engine", engine,
                "listeners", "PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0",
                "ssl.keystore.location", broker.toString(),
                "ssl.keystore.type", "PKCS12",
                "ssl.keystore.password", PW))) {
            String ssl = b.bootstrapServers("SSL");
            assertThat(nodes(ssl, sslClient(trustBroker))).extracting(Node::port).containsExactly(port(ssl));
            assertThat(nodes(b.bootstrapServers("PLAINTEXT"), Map.of())).extracting(Node::port)
                    .containsExactly(port(b.bootstrapServers("PLAINTEXT")));
            // small records (copied into the answer) and large ones (file slices read in chunks)
            roundTrip(ssl, sslClient(trustBroker), 200, 100);
            roundTrip(ssl, sslClient(trustBroker), 40, 200_000);
            // a plaintext client on the TLS port is refused, the broker carries on
            assertThatThrownBy(() -> nodes(ssl, Map.of(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 3_000,
                    AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2_000)))
                    .isInstanceOf(ExecutionException.class);
            assertThat(nodes(ssl, sslClient(trustBroker))).hasSize(1);
            // and a TLS client on the plaintext port
            Map<String, Object> tlsOnPlain = sslClient(trustBroker);
            tlsOnPlain.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 3_000);
            tlsOnPlain.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2_000);
            assertThatThrownBy(() -> nodes(b.bootstrapServers("PLAINTEXT"), tlsOnPlain))
                    .isInstanceOf(ExecutionException.class);
            assertThat(nodes(b.bootstrapServers("PLAINTEXT"), Map.of())).hasSize(1);
        }
    }

    /**
     * A Fetch answer with more bytes from files than the connection's high water mark (1 MiB):
     * eight partitions of up to 1 MiB each. The file slices waiting to be read must not stop the
     * chunked writer that reads them.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"openssl", "jdk"})
    void fetchAnswersLargerThanTheWriteBufferFlowOverTls(String engine) throws Exception {
        try (SecuredBroker b = SecuredBroker.start(data, props(
                "brook.ssl.engine", engine,
                "listeners", "SSL://127.0.0.1:0",
                "ssl.keystore.location", broker.toString(),
                "ssl.keystore.type", "PKCS12",
                "ssl.keystore.password", PW))) {
            Map<String, Object> client = sslClient(trustBroker);
            client.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 50);
            roundTrip(b.bootstrapServers("SSL"), client, 160, 50_000, 8);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"openssl", "jdk"})
    void mutualTlsRequiresAClientCertificateTheBrokerTrusts(String engine) throws Exception {
        Path trustClient = certs.trustStore("trust-client-" + engine, client);
        try (SecuredBroker b = SecuredBroker.start(data, props(
                "brook.ssl.engine", engine,
                "listeners", "SSL://127.0.0.1:0",
                "ssl.keystore.location", broker.toString(),
                "ssl.keystore.type", "PKCS12",
                "ssl.keystore.password", PW,
                "ssl.truststore.location", trustClient.toString(),
                "ssl.truststore.type", "PKCS12",
                "ssl.truststore.password", PW,
                "ssl.client.auth", "required"))) {
            String ssl = b.bootstrapServers("SSL");
            assertThatThrownBy(() -> nodes(ssl, sslClient(trustBroker)))
                    .hasCauseInstanceOf(SslAuthenticationException.class);
            Map<String, Object> withCert = sslClient(trustBroker);
            withCert.put(SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG, client.toString());
            withCert.put(SslConfigs.SSL_KEYSTORE_PASSWORD_CONFIG, PW);
            withCert.put(SslConfigs.SSL_KEYSTORE_TYPE_CONFIG, "PKCS12");
            roundTrip(ssl, withCert, 10, 100);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"openssl", "jdk"})
    void keyStoresAsJksAndInlinePemPerListener(String engine) throws Exception {
        Path jks = certs.asJks(broker, "broker-jks-" + engine);
        try (SecuredBroker b = SecuredBroker.start(data, props(
                "brook.ssl.engine", engine,
                "listeners", "JKS://127.0.0.1:0,PEM://127.0.0.1:0",
                "listener.security.protocol.map", "JKS:SSL,PEM:SSL",
                "listener.name.jks.ssl.keystore.location", jks.toString(),
                "listener.name.jks.ssl.keystore.password", PW,
                "listener.name.pem.ssl.keystore.type", "PEM",
                "listener.name.pem.ssl.keystore.key", TestCertificates.privateKeyPem(broker),
                "listener.name.pem.ssl.keystore.certificate.chain", TestCertificates.certificatePem(broker)))) {
            assertThat(nodes(b.bootstrapServers("JKS"), sslClient(trustBroker))).hasSize(1);
            Map<String, Object> pemTrust = new HashMap<>();
            pemTrust.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SSL");
            pemTrust.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PEM");
            pemTrust.put(SslConfigs.SSL_TRUSTSTORE_CERTIFICATES_CONFIG, TestCertificates.certificatePem(broker));
            assertThat(nodes(b.bootstrapServers("PEM"), pemTrust)).extracting(Node::port)
                    .containsExactly(port(b.bootstrapServers("PEM")));
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"openssl", "jdk"})
    void saslSslWithPlainAuthenticatesUsersAndRefusesWrongPasswords(String engine) throws Exception {
        try (SecuredBroker b = SecuredBroker.start(data, props(
                "brook.ssl.engine", engine,
                "listeners", "SASL_SSL://127.0.0.1:0",
                "ssl.keystore.location", broker.toString(),
                "ssl.keystore.type", "PKCS12",
                "ssl.keystore.password", PW,
                "sasl.enabled.mechanisms", "PLAIN",
                "listener.name.sasl_ssl.plain.sasl.jaas.config", JAAS))) {
            String addr = b.bootstrapServers("SASL_SSL");
            roundTrip(addr, saslClient("SASL_SSL", "alice", "alice-secret"), 20, 1000);
            assertThatThrownBy(() -> nodes(addr, saslClient("SASL_SSL", "alice", "wrong")))
                    .hasCauseInstanceOf(SaslAuthenticationException.class)
                    .hasMessageContaining("Authentication failed: Invalid username or password");
        }
    }

    @Test
    void saslPlaintextWithPlain() throws Exception {
        try (SecuredBroker b = SecuredBroker.start(data, props(
                "listeners", "SASL_PLAINTEXT://127.0.0.1:0",
                "sasl.enabled.mechanisms", "PLAIN",
                "listener.name.sasl_plaintext.plain.sasl.jaas.config", JAAS))) {
            String addr = b.bootstrapServers("SASL_PLAINTEXT");
            roundTrip(addr, saslClient("SASL_PLAINTEXT", "admin", "admin-secret"), 20, 1000);
            assertThatThrownBy(() -> nodes(addr, saslClient("SASL_PLAINTEXT", "mallory", "x")))
                    .hasCauseInstanceOf(SaslAuthenticationException.class);
            // a request other than SaslAuthenticate in the middle of the exchange: its own error
            // response, ILLEGAL_SASL_STATE, then the close (platformatic's client reads that answer)
            try (RawKafkaRequests raw = new RawKafkaRequests(addr)) {
                SaslHandshakeResponse h = (SaslHandshakeResponse) raw.call(new SaslHandshakeRequest.Builder(
                        new SaslHandshakeRequestData().setMechanism("PLAIN")).build((short) 1));
                assertThat(h.error()).isEqualTo(Errors.NONE);
                MetadataResponse m = (MetadataResponse) raw.call(new MetadataRequest.Builder(
                        new MetadataRequestData().setTopics(List.of(new MetadataRequestData.MetadataRequestTopic()
                                .setName("t"))).setAllowAutoTopicCreation(false)).build((short) 12));
                assertThat(m.topicMetadata()).singleElement()
                        .satisfies(t -> assertThat(t.error()).isEqualTo(Errors.ILLEGAL_SASL_STATE));
                assertThat(m.brokers()).isEmpty();
                assertThat(raw.closedByBroker()).isTrue();
            }
        }
    }

    private static Map<String, Object> saslClient(String protocol, String user, String password) {
        return saslClient(protocol, "PLAIN", user, password);
    }

    private static Map<String, Object> saslClient(String protocol, String mechanism, String user, String password) {
        Map<String, Object> p = protocol.equals("SASL_SSL") ? sslClient(trustBroker) : new HashMap<>();
        p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, protocol);
        p.put(SaslConfigs.SASL_MECHANISM, mechanism);
        if (mechanism.equals("OAUTHBEARER")) {
            // an unsigned token with sub=<user>, as Kafka's unsecured login makes
            p.put(SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule"
                    + " required sub=\"" + user + "\";");
            p.put(SaslConfigs.SASL_LOGIN_CALLBACK_HANDLER_CLASS, UnsignedTokenLogin.class.getName());
            return p;
        }
        String module = mechanism.equals("PLAIN") ? "org.apache.kafka.common.security.plain.PlainLoginModule"
                : "org.apache.kafka.common.security.scram.ScramLoginModule";
        p.put(SaslConfigs.SASL_JAAS_CONFIG, module + " required username=\"" + user + "\" password=\"" + password
                + "\";");
        return p;
    }

    @Test
    void oauthBearerWithUnsecuredTokens() throws Exception {
        try (SecuredBroker b = SecuredBroker.start(data, props(
                "listeners", "SASL_PLAINTEXT://127.0.0.1:0",
                "sasl.enabled.mechanisms", "OAUTHBEARER"))) {
            roundTrip(b.bootstrapServers("SASL_PLAINTEXT"), saslClient("SASL_PLAINTEXT", "OAUTHBEARER", "alice", ""),
                    10, 100);
        }
    }

    /** OAUTHBEARER's client message with an unsigned token for {@code sub} that expires at {@code expS}. */
    private static byte[] unsignedBearer(String sub, long expS) {
        Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
        String claims = "{\"sub\":\"" + sub + "\",\"exp\":" + expS + "}";
        String token = b64.encodeToString("{\"alg\":\"none\"}".getBytes(StandardCharsets.UTF_8)) + "."
                + b64.encodeToString(claims.getBytes(StandardCharsets.UTF_8)) + ".";
        return ("n,,\u0001auth=Bearer " + token + "\u0001\u0001").getBytes(StandardCharsets.UTF_8);
    }

    private static double total(Admin admin, String metric) {
        double sum = 0;
        for (Map.Entry<MetricName, ? extends Metric> e : admin.metrics().entrySet()) {
            if (e.getKey().name().equals(metric)) {
                sum += ((Number) e.getValue().metricValue()).doubleValue();
            }
        }
        return sum;
    }

    /**
     * KIP-368 without {@code connections.max.reauth.ms} (Kafka's default, 0): the token's expiry
     * alone bounds an OAUTHBEARER session, SaslAuthenticate tells the client so, and a client whose
     * tokens live 3 s re-authenticates with fresh ones and goes on.
     */
    @Test
    void oauthBearerSessionsLastAsLongAsTheirTokens() throws Exception {
        try (SecuredBroker b = SecuredBroker.start(data, props(
                "listeners", "SASL_PLAINTEXT://127.0.0.1:0",
                "sasl.enabled.mechanisms", "OAUTHBEARER"))) {
            String addr = b.bootstrapServers("SASL_PLAINTEXT");
            try (RawKafkaRequests raw = new RawKafkaRequests(addr)) {
                SaslHandshakeResponse h = (SaslHandshakeResponse) raw.call(new SaslHandshakeRequest.Builder(
                        new SaslHandshakeRequestData().setMechanism("OAUTHBEARER")).build((short) 1));
                assertThat(h.error()).isEqualTo(Errors.NONE);
                long before = System.currentTimeMillis();
                long expS = before / 1000 + 60;
                SaslAuthenticateResponse a = (SaslAuthenticateResponse) raw.call(new SaslAuthenticateRequest.Builder(
                        new SaslAuthenticateRequestData().setAuthBytes(unsignedBearer("alice", expS)))
                        .build((short) 2));
                long after = System.currentTimeMillis();
                assertThat(a.error()).isEqualTo(Errors.NONE);
                assertThat(a.sessionLifetimeMs()).as("the time left until the token's exp")
                        .isBetween(expS * 1000 - after, expS * 1000 - before);
            }
            Map<String, Object> client = saslClient("SASL_PLAINTEXT", "OAUTHBEARER", "alice", "");
            client.put(SaslConfigs.SASL_JAAS_CONFIG,
                    "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required sub=\"alice\""
                            + " lifetimeSeconds=\"3\";");
            // the admin client asks for metadata this often, and re-authenticates when it sends
            client.put(AdminClientConfig.METADATA_MAX_AGE_CONFIG, 100);
            UnsignedTokenLogin.LOGINS.set(0);
            try (Admin a = admin(addr, client)) {
                assertThat(a.describeCluster().clusterId().get(30, TimeUnit.SECONDS)).isNotBlank();
                Await.until("two re-authentications and two fresh tokens", Duration.ofSeconds(30),
                        () -> total(a, "successful-reauthentication-total") >= 2
                                && UnsignedTokenLogin.LOGINS.get() >= 3);
                assertThat(total(a, "failed-reauthentication-total")).isZero();
                assertThat(total(a, "failed-authentication-total")).isZero();
                assertThat(a.describeCluster().clusterId().get(30, TimeUnit.SECONDS)).isNotBlank();
            }
        }
    }

    @Test
    void scramUsersAreManagedWithTheAdminClientAndSurviveARestart() throws Exception {
        Map<String, String> config = Map.of(
                "listeners", "SASL_PLAINTEXT://127.0.0.1:0",
                "sasl.enabled.mechanisms", "SCRAM-SHA-256,SCRAM-SHA-512");
        Map<String, Object> admin = saslClient("SASL_PLAINTEXT", "SCRAM-SHA-512", "admin", "admin-secret");
        Map<String, Object> alice = saslClient("SASL_PLAINTEXT", "SCRAM-SHA-256", "alice", "alice-secret");
        try (SecuredBroker b = SecuredBroker.start(data, config, "SCRAM-SHA-512=[name=admin,password=admin-secret]")) {
            String addr = b.bootstrapServers("SASL_PLAINTEXT");
            try (Admin a = admin(addr, admin)) {
                a.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion("alice",
                        new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 8192), "alice-secret")))
                        .all().get(30, TimeUnit.SECONDS);
                Map<String, UserScramCredentialsDescription> d = a.describeUserScramCredentials()
                        .all().get(30, TimeUnit.SECONDS);
                assertThat(d).containsOnlyKeys("admin", "alice");
                assertThat(d.get("alice").credentialInfos()).containsExactly(
                        new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 8192));
                assertThat(d.get("admin").credentialInfos()).containsExactly(
                        new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096));
                assertThatThrownBy(() -> a.alterUserScramCredentials(List.of(new UserScramCredentialDeletion("bob",
                        ScramMechanism.SCRAM_SHA_256))).all().get(30, TimeUnit.SECONDS))
                        .hasCauseInstanceOf(ResourceNotFoundException.class);
                assertThatThrownBy(() -> a.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion("bob",
                        new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 100), "x")))
                        .all().get(30, TimeUnit.SECONDS))
                        .hasCauseInstanceOf(UnacceptableCredentialException.class);
            }
            roundTrip(addr, alice, 20, 100);
            assertThatThrownBy(() -> nodes(addr, saslClient("SASL_PLAINTEXT", "SCRAM-SHA-256", "alice", "wrong")))
                    .hasCauseInstanceOf(SaslAuthenticationException.class)
                    .hasMessageContaining("Authentication failed during authentication due to invalid credentials"
                            + " with SASL mechanism SCRAM-SHA-256");
            assertThatThrownBy(() -> nodes(addr, saslClient("SASL_PLAINTEXT", "SCRAM-SHA-512", "alice",
                    "alice-secret"))).as("alice has no SCRAM-SHA-512 credential")
                    .hasCauseInstanceOf(SaslAuthenticationException.class);
            b.restart();
            String again = b.bootstrapServers("SASL_PLAINTEXT");
            assertThat(nodes(again, alice)).as("credentials are durable").hasSize(1);
            try (Admin a = admin(again, admin)) {
                a.alterUserScramCredentials(List.of(new UserScramCredentialDeletion("alice",
                        ScramMechanism.SCRAM_SHA_256))).all().get(30, TimeUnit.SECONDS);
            }
            assertThatThrownBy(() -> nodes(again, alice)).hasCauseInstanceOf(SaslAuthenticationException.class);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"openssl", "jdk"})
    void requestedClientAuthServesClientsWithAndWithoutACertificate(String engine) throws Exception {
        Path trustClient = certs.trustStore("trust-client-requested-" + engine, client);
        try (SecuredBroker b = SecuredBroker.start(data, props(
                "brook.ssl.engine", engine,
                "listeners", "SSL://127.0.0.1:0",
                "ssl.keystore.location", broker.toString(),
                "ssl.keystore.type", "PKCS12",
                "ssl.keystore.password", PW,
                "ssl.truststore.location", trustClient.toString(),
                "ssl.truststore.type", "PKCS12",
                "ssl.truststore.password", PW,
                "ssl.client.auth", "requested"))) {
            String ssl = b.bootstrapServers("SSL");
            roundTrip(ssl, sslClient(trustBroker), 10, 100);
            Map<String, Object> withCert = sslClient(trustBroker);
            withCert.put(SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG, client.toString());
            withCert.put(SslConfigs.SSL_KEYSTORE_PASSWORD_CONFIG, PW);
            withCert.put(SslConfigs.SSL_KEYSTORE_TYPE_CONFIG, "PKCS12");
            roundTrip(ssl, withCert, 10, 100);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"openssl", "jdk"})
    void enabledProtocolsAndCipherSuitesBoundWhatClientsNegotiate(String engine) throws Exception {
        try (SecuredBroker b = SecuredBroker.start(data, props(
                "brook.ssl.engine", engine,
                "listeners", "SSL://127.0.0.1:0",
                "ssl.keystore.location", broker.toString(),
                "ssl.keystore.type", "PKCS12",
                "ssl.keystore.password", PW,
                "ssl.enabled.protocols", "TLSv1.2",
                "ssl.cipher.suites", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"))) {
            String ssl = b.bootstrapServers("SSL");
            Map<String, Object> tls13 = sslClient(trustBroker);
            tls13.put(SslConfigs.SSL_ENABLED_PROTOCOLS_CONFIG, "TLSv1.3");
            assertThatThrownBy(() -> nodes(ssl, tls13)).hasCauseInstanceOf(SslAuthenticationException.class);
            Map<String, Object> otherCipher = sslClient(trustBroker);
            otherCipher.put(SslConfigs.SSL_CIPHER_SUITES_CONFIG, "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384");
            assertThatThrownBy(() -> nodes(ssl, otherCipher)).hasCauseInstanceOf(SslAuthenticationException.class);
            // the client's defaults include TLSv1.2 and that suite
            roundTrip(ssl, sslClient(trustBroker), 20, 20_000);
        }
    }

    @Test
    void anUnknownTlsEngineStopsTheStart() { // Brook's own key: the embedded broker in every run
        assertThatThrownBy(() -> Brook.builder()
                .config("brook.ssl.engine", "conscrypt")
                .config("listeners", "SSL://127.0.0.1:0")
                .config("ssl.keystore.location", broker.toString())
                .config("ssl.keystore.type", "PKCS12")
                .config("ssl.keystore.password", PW)
                .start().close())
                .hasMessageContaining("brook.ssl.engine must be openssl or jdk: conscrypt");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"openssl", "jdk"})
    void aReplacedKeyStoreServesNewConnectionsWithoutRestart(String engine) throws Exception {
        Path other = certs.keyStore("other-" + engine, "localhost");
        Path trustOther = certs.trustStore("trust-other-" + engine, other);
        Path live = dir.resolve("live-" + engine + ".p12");
        Files.copy(broker, live, StandardCopyOption.REPLACE_EXISTING);
        try (SecuredBroker b = SecuredBroker.start(data, props(
                "brook.ssl.engine", engine,
                "listeners", "SSL://127.0.0.1:0",
                "ssl.keystore.location", live.toString(),
                "ssl.keystore.type", "PKCS12",
                "ssl.keystore.password", PW))) {
            String ssl = b.bootstrapServers("SSL");
            assertThat(nodes(ssl, sslClient(trustBroker))).hasSize(1);
            assertThatThrownBy(() -> nodes(ssl, sslClient(trustOther)))
                    .hasCauseInstanceOf(SslAuthenticationException.class);
            Path next = dir.resolve("live-" + engine + ".p12.new");
            Files.copy(other, next, StandardCopyOption.REPLACE_EXISTING);
            Files.move(next, live, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            if (b.kafka()) {
                // Kafka reloads a key store when told to with a dynamic update naming the same file
                // (KAFKA-DIFFERENCES.md); Brook watches the file
                try (Admin a = admin(ssl, sslClient(trustBroker))) {
                    a.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.BROKER, "1"),
                            List.of(new AlterConfigOp(new ConfigEntry("listener.name.ssl.ssl.keystore.location",
                                    live.toString()), AlterConfigOp.OpType.SET)))).all().get(30, TimeUnit.SECONDS);
                }
                // and applies the update from its metadata log a moment after acknowledging it
                Await.until("Kafka serves the new key store", Duration.ofSeconds(30), () -> {
                    try {
                        return nodes(ssl, sslClient(trustOther)).size() == 1;
                    } catch (Exception e) {
                        return false;
                    }
                });
            }
            assertThat(nodes(ssl, sslClient(trustOther))).hasSize(1);
        }
    }
}
