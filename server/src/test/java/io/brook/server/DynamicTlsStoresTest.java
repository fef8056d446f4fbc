package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.wire.message.AlterConfigsRequest;
import io.brook.wire.message.AlterConfigsResponse;
import io.brook.wire.protocol.Errors;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.AlterConfigsOptions;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A TLS listener's key store changed at run time through the admin APIs, as with {@code
 * kafka-configs.sh --alter --entity-type brokers --entity-name <id> --add-config
 * listener.name.ssl.ssl.keystore.location=...}: new connections get the new certificate, an open
 * connection keeps its session, the change survives a restart; a new trust store decides which
 * client certificates new connections may present; a store that does not load or names another
 * host is refused with INVALID_CONFIG and nothing changes; DescribeConfigs shows the location and
 * hides the password.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DynamicTlsStoresTest {

    private static final String PW = TestKeyStores.PASSWORD;
    private static final String LOCATION = "listener.name.ssl.ssl.keystore.location";

    @TempDir
    static Path stores;
    private static Path first;
    private static Path renewed;
    private static Path otherHost;
    private static Path otherNames;

    @TempDir
    Path data;
    private Brook brook;
    private Admin admin;
    private ConfigResource me;

    @BeforeAll
    static void makeStores() throws Exception {
        first = TestKeyStores.create(stores, "first", "CN=localhost", "dns:localhost,ip:127.0.0.1");
        renewed = TestKeyStores.create(stores, "renewed", "CN=localhost", "dns:localhost,ip:127.0.0.1");
        otherHost = TestKeyStores.create(stores, "other-host", "CN=elsewhere", "dns:localhost,ip:127.0.0.1");
        otherNames = TestKeyStores.create(stores, "other-names", "CN=localhost", "dns:elsewhere");
    }

    @BeforeEach
    void start() throws Exception {
        Path live = data.resolve("live.p12");
        Files.copy(first, live);
        brook = Brook.builder().dataDir(data.resolve("broker"))
                .config("listeners", "PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0")
                .config("brook.ssl.engine", "jdk")
                .config("ssl.keystore.type", "PKCS12")
                .config("ssl.keystore.location", live.toString())
                .config("ssl.keystore.password", PW)
                .start();
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, brook.bootstrapServers("PLAINTEXT")));
        me = new ConfigResource(ConfigResource.Type.BROKER,
                Integer.toString(admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).iterator().next().id()));
    }

    @AfterEach
    void stop() {
        admin.close();
        brook.close();
    }

    private void set(ConfigResource resource, String... keyValues) throws Exception {
        List<AlterConfigOp> ops = new java.util.ArrayList<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            ops.add(new AlterConfigOp(new ConfigEntry(keyValues[i], keyValues[i + 1]), AlterConfigOp.OpType.SET));
        }
        admin.incrementalAlterConfigs(Map.of(resource, ops)).all().get(30, TimeUnit.SECONDS);
    }

    /** The certificate a new TLS connection to the SSL listener is served. */
    private X509Certificate served() throws Exception {
        try (SSLSocket s = connect()) {
            return (X509Certificate) s.getSession().getPeerCertificates()[0];
        }
    }

    private SSLSocket connect() throws Exception {
        return connect(brook, null);
    }

    /** A TLS connection to {@code b}'s SSL listener, with the client certificate of {@code clientStore} (null: none). */
    private static SSLSocket connect(Brook b, Path clientStore) throws Exception {
        javax.net.ssl.KeyManager[] keys = null;
        if (clientStore != null) {
            java.security.KeyStore ks = java.security.KeyStore.getInstance("PKCS12");
            try (java.io.InputStream in = Files.newInputStream(clientStore)) {
                ks.load(in, PW.toCharArray());
            }
            javax.net.ssl.KeyManagerFactory kmf = javax.net.ssl.KeyManagerFactory.getInstance(
                    javax.net.ssl.KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(ks, PW.toCharArray());
            keys = kmf.getKeyManagers();
        }
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(keys, new TrustManager[] {TestKeyStores.trustingAnyServer()}, null);
        String[] hostPort = b.bootstrapServers("SSL").split(":");
        SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket(hostPort[0], Integer.parseInt(hostPort[1]));
        s.startHandshake();
        return s;
    }

    /** Sends ApiVersions v0 on an open connection and returns the answer's correlation id. */
    private static int apiVersions(SSLSocket s, int correlationId) throws Exception {
        DataOutputStream out = new DataOutputStream(s.getOutputStream());
        out.writeInt(10);
        out.writeShort(18);
        out.writeShort(0);
        out.writeInt(correlationId);
        out.writeShort(-1);
        out.flush();
        DataInputStream in = new DataInputStream(s.getInputStream());
        byte[] answer = new byte[in.readInt()];
        in.readFully(answer);
        return java.nio.ByteBuffer.wrap(answer).getInt();
    }

    private Map<String, ConfigEntry> describe() throws Exception {
        Config c = admin.describeConfigs(List.of(me)).all().get(30, TimeUnit.SECONDS).get(me);
        Map<String, ConfigEntry> out = new java.util.HashMap<>();
        for (ConfigEntry e : c.entries()) {
            out.put(e.name(), e);
        }
        return out;
    }

    private static void assertInvalid(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, String message) {
        assertThatThrownBy(call).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(InvalidConfigurationException.class)
                .cause().hasMessageContaining(message);
    }

    @Test
    void aNewKeyStoreServesNewConnectionsWhileAnOpenOneKeepsItsSession() throws Exception {
        assertThat(served()).isEqualTo(TestKeyStores.certificate(first));
        try (SSLSocket open = connect()) {
            set(me, LOCATION, renewed.toString(), "listener.name.ssl.ssl.keystore.password", PW);

            assertThat(served()).isEqualTo(TestKeyStores.certificate(renewed));
            assertThat(apiVersions(open, 7)).isEqualTo(7);
            assertThat(open.getSession().getPeerCertificates()[0]).isEqualTo(TestKeyStores.certificate(first));
        }
        Map<String, ConfigEntry> described = describe();
        assertThat(described.get(LOCATION).value()).isEqualTo(renewed.toString());
        assertThat(described.get(LOCATION).source()).isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_BROKER_CONFIG);
        assertThat(described.get(LOCATION).isSensitive()).isFalse();
        ConfigEntry password = described.get("listener.name.ssl.ssl.keystore.password");
        assertThat(password.value()).isNull();
        assertThat(password.isSensitive()).isTrue();
        assertThat(password.source()).isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_BROKER_CONFIG);

        brook.restart();
        assertThat(served()).isEqualTo(TestKeyStores.certificate(renewed));
        assertThat(Files.readString(data.resolve("broker/meta/broker-configs"))).contains(renewed.getFileName().toString());
    }

    @Test
    void aStoreSetAtRunTimeThatNoLongerLoadsLeavesTheListenerOnItsConfiguredStoreAfterARestart() throws Exception {
        Path gone = data.resolve("gone.p12");
        Files.copy(renewed, gone);
        set(me, LOCATION, gone.toString());
        assertThat(served()).isEqualTo(TestKeyStores.certificate(renewed));
        Files.delete(gone);

        brook.restart();

        assertThat(brook.isRunning()).isTrue();
        assertThat(served()).isEqualTo(TestKeyStores.certificate(first));
    }

    @Test
    void theSamePathAgainReadsAReplacedFile() throws Exception {
        Path next = data.resolve("next.p12");
        Files.copy(renewed, next);
        set(me, LOCATION, next.toString());
        assertThat(served()).isEqualTo(TestKeyStores.certificate(renewed));
        Path tmp = data.resolve("next.p12.tmp");
        Files.copy(first, tmp);
        Files.move(tmp, next, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        set(me, LOCATION, next.toString());
        assertThat(served()).isEqualTo(TestKeyStores.certificate(first));
    }

    @Test
    void aStoreForAnotherHostOrThatDoesNotLoadIsRefusedAndNothingChanges() throws Exception {
        assertInvalid(() -> set(me, LOCATION, otherHost.toString()), "DistinguishedName does not match");
        assertInvalid(() -> set(me, LOCATION, otherNames.toString()), "SubjectAltNames do not match");
        assertInvalid(() -> set(me, LOCATION, stores.resolve("missing.p12").toString()),
                "Invalid TLS configuration of listener SSL");
        assertInvalid(() -> set(me, LOCATION, renewed.toString(), "listener.name.ssl.ssl.keystore.password", "wrong"),
                "Invalid TLS configuration of listener SSL");
        assertThat(served()).isEqualTo(TestKeyStores.certificate(first));
        assertThat(describe()).doesNotContainKey(LOCATION);
        assertThat(data.resolve("broker/meta/broker-configs")).doesNotExist();
        // validate-only checks the same and changes nothing either
        admin.incrementalAlterConfigs(Map.of(me, List.of(new AlterConfigOp(new ConfigEntry(LOCATION,
                renewed.toString()), AlterConfigOp.OpType.SET))), new AlterConfigsOptions().validateOnly(true)).all().get(30, TimeUnit.SECONDS);
        assertThat(served()).isEqualTo(TestKeyStores.certificate(first));
    }

    @Test
    void kafkasRulesForWhereAStoreMayBeSet() throws Exception {
        assertInvalid(() -> set(new ConfigResource(ConfigResource.Type.BROKER, ""), LOCATION, renewed.toString()),
                "Cannot update these configs at default cluster level, broker id must be specified");
        assertInvalid(() -> set(me, "ssl.keystore.location", renewed.toString()),
                "can be dynamically updated only per-listener using the listener prefix");
        assertInvalid(() -> set(me, "listener.name.plaintext.ssl.keystore.location", renewed.toString()),
                "Listener PLAINTEXT does not use TLS");
        assertInvalid(() -> set(me, "listener.name.nope.ssl.keystore.location", renewed.toString()),
                "No listener named NOPE");
        assertInvalid(() -> set(me, "listener.name.ssl.ssl.client.auth", "required"), "listener.name.ssl.ssl.client.auth");
        assertInvalid(() -> set(me, "listener.name.ssl.ssl.truststore.location",
                TestKeyStores.trustStore(data, "trust", first).toString(), "listener.name.ssl.ssl.truststore.password", PW,
                "listener.name.ssl.ssl.truststore.type", "PKCS12"),
                "Cannot add SSL truststore to an existing listener for which no truststore was configured");
    }

    /** AlterConfigs (the API kafkajs and librdkafka use; kafka-clients 4 no longer sends it) on this broker. */
    private short alterConfigs(Map<String, String> values) throws Exception {
        List<AlterConfigsRequest.AlterableConfig> configs = new java.util.ArrayList<>();
        values.forEach((k, v) -> configs.add(new AlterConfigsRequest.AlterableConfig().name(k).value(v)));
        try (ProtocolClient client = new ProtocolClient(brook.bootstrapServers("PLAINTEXT"))) {
            AlterConfigsResponse r = client.call(new AlterConfigsRequest().resources(List.of(
                    new AlterConfigsRequest.AlterConfigsResource().resourceType((byte) 4).resourceName(me.name())
                            .configs(configs))).validateOnly(false), (short) 2);
            return r.responses().get(0).errorCode();
        }
    }

    @Test
    void alterConfigsReplacesTheBrokersDynamicSettingsWhole() throws Exception {
        assertThat(alterConfigs(Map.of(LOCATION, renewed.toString()))).isZero();
        assertThat(served()).isEqualTo(TestKeyStores.certificate(renewed));
        assertThat(alterConfigs(Map.of(LOCATION, otherHost.toString()))).isEqualTo(Errors.INVALID_CONFIG.code());
        assertThat(served()).isEqualTo(TestKeyStores.certificate(renewed));
        // without the key the listener goes back to its configured store
        assertThat(alterConfigs(Map.of())).isZero();
        assertThat(served()).isEqualTo(TestKeyStores.certificate(first));
        Collection<ConfigEntry> none = describe().values();
        assertThat(none).noneMatch(e -> e.name().startsWith("listener.name."));
    }

    /** Whether {@code b}'s SSL listener answers a request on a new connection with {@code client}'s certificate. */
    private static boolean answers(Brook b, Path client) throws Exception {
        try (SSLSocket s = connect(b, client)) {
            return apiVersions(s, 1) == 1;
        } catch (java.io.IOException refused) { // in the handshake (TLSv1.2) or after it (TLSv1.3)
            return false;
        }
    }

    @Test
    void aNewTrustStoreDecidesWhichClientCertificatesNewConnectionsMayUse() throws Exception {
        Path alice = TestKeyStores.create(data, "alice", "CN=alice", "dns:localhost");
        Path bob = TestKeyStores.create(data, "bob", "CN=bob", "dns:localhost");
        Path trustAlice = TestKeyStores.trustStore(data, "trust-alice", alice);
        Path trustBob = TestKeyStores.trustStore(data, "trust-bob", bob);
        try (Brook mutual = Brook.builder().dataDir(data.resolve("mutual"))
                .config("listeners", "PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0")
                .config("brook.ssl.engine", "jdk")
                .config("ssl.client.auth", "required")
                .config("ssl.keystore.type", "PKCS12")
                .config("ssl.keystore.location", first.toString())
                .config("ssl.keystore.password", PW)
                .config("ssl.truststore.type", "PKCS12")
                .config("ssl.truststore.location", trustAlice.toString())
                .config("ssl.truststore.password", PW)
                .start();
                Admin a = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                        mutual.bootstrapServers("PLAINTEXT")))) {
            assertThat(answers(mutual, alice)).isTrue();
            assertThat(answers(mutual, bob)).isFalse();
            try (SSLSocket before = connect(mutual, alice)) {
                a.incrementalAlterConfigs(Map.of(me, List.of(new AlterConfigOp(new ConfigEntry(
                        "listener.name.ssl.ssl.truststore.location", trustBob.toString()), AlterConfigOp.OpType.SET))))
                        .all().get(30, TimeUnit.SECONDS);
                assertThat(answers(mutual, bob)).isTrue();
                assertThat(answers(mutual, alice)).isFalse();
                assertThat(apiVersions(before, 5)).as("a connection from before keeps its session").isEqualTo(5);
            }
        }
    }
}
