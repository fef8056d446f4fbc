package io.brook.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BrokerConfigTest {

    @Test
    void shouldUseKafkaDefaultsWhereBrookDoesNotDiffer() {
        BrokerConfig c = BrokerConfig.defaults();
        assertThat(c.listener()).isEqualTo(new Listener("PLAINTEXT", "127.0.0.1", 9092));
        assertThat(c.advertisedListener()).isNull();
        assertThat(c.nodeId()).isEqualTo(1);
        assertThat(c.dataDir()).isEqualTo(Path.of("./data"));
        assertThat(c.numPartitions()).isEqualTo(1);
        assertThat(c.defaultReplicationFactor()).isEqualTo((short) 1);
        assertThat(c.autoCreateTopics()).isTrue();
        assertThat(c.socketRequestMaxBytes()).isEqualTo(104_857_600);
        assertThat(c.connectionsMaxIdleMs()).isEqualTo(600_000L);
        assertThat(c.maxConnections()).isEqualTo(BrokerConfig.DEFAULT_MAX_CONNECTIONS);
        assertThat(c.fsyncOnAck()).isTrue();
        assertThat(c.messageMaxBytes()).isEqualTo(1_048_588);
        assertThat(c.retentionMs()).isEqualTo(168L * 3_600_000L);
        assertThat(c.isExplicit(BrokerConfig.NUM_PARTITIONS)).isFalse();
    }

    @Test
    void shouldReadKafkaStyleProperties() {
        BrokerConfig c = BrokerConfig.parse(Map.of(
                "listeners", "PLAINTEXT://localhost:0",
                "advertised.listeners", "PLAINTEXT://broker.example:19092",
                "broker.id", "7",
                "log.dirs", "/tmp/x",
                "num.partitions", " 3 ",
                "auto.create.topics.enable", "FALSE",
                "brook.fsync.on.ack", "false",
                "log.retention.minutes", "5"));
        assertThat(c.listener()).isEqualTo(new Listener("PLAINTEXT", "localhost", 0));
        assertThat(c.advertisedListener()).isEqualTo(new Listener("PLAINTEXT", "broker.example", 19092));
        assertThat(c.nodeId()).isEqualTo(7);
        assertThat(c.dataDir()).isEqualTo(Path.of("/tmp/x"));
        assertThat(c.numPartitions()).isEqualTo(3);
        assertThat(c.autoCreateTopics()).isFalse();
        assertThat(c.fsyncOnAck()).isFalse();
        assertThat(c.retentionMs()).isEqualTo(300_000L);
        assertThat(c.isExplicit(BrokerConfig.NUM_PARTITIONS)).isTrue();
        assertThat(c.isExplicit(BrokerConfig.NODE_ID)).isTrue();
    }

    @Test
    void shouldBoundTheCompactorKeyMapWithKafkasSetting() {
        assertThat(BrokerConfig.defaults().longValue(BrokerConfig.LOG_CLEANER_DEDUPE_BUFFER_SIZE)).isEqualTo(128L << 20);
        assertThat(BrokerConfig.parse(Map.of("log.cleaner.dedupe.buffer.size", "4194304"))
                .longValue(BrokerConfig.LOG_CLEANER_DEDUPE_BUFFER_SIZE)).isEqualTo(4L << 20);
        assertThatThrownBy(() -> BrokerConfig.parse(Map.of("log.cleaner.dedupe.buffer.size", "1024")))
                .hasMessageContaining("log.cleaner.dedupe.buffer.size");
    }

    @Test
    void shouldExpireAndBoundProducerStateWithKafkasExpiryAndBrooksBound() {
        assertThat(BrokerConfig.defaults().intValue(BrokerConfig.PRODUCER_ID_EXPIRATION_MS)).isEqualTo(86_400_000);
        assertThat(BrokerConfig.defaults().intValue(BrokerConfig.MAX_PRODUCER_IDS_PER_PARTITION)).isEqualTo(100_000);
        assertThat(BrokerConfig.parse(Map.of("producer.id.expiration.ms", "60000"))
                .intValue(BrokerConfig.PRODUCER_ID_EXPIRATION_MS)).isEqualTo(60_000);
        assertThatThrownBy(() -> BrokerConfig.parse(Map.of("brook.max.producer.ids.per.partition", "0")))
                .hasMessageContaining("brook.max.producer.ids.per.partition");
    }

    @Test
    void shouldRefuseSegmentsBelowKafkasMinimumOfOneMebibyte() {
        assertThat(BrokerConfig.parse(Map.of("log.segment.bytes", "1048576")).string(BrokerConfig.LOG_SEGMENT_BYTES))
                .isEqualTo("1048576");
        assertThatThrownBy(() -> BrokerConfig.parse(Map.of("log.segment.bytes", "1048575")))
                .hasMessageContaining("log.segment.bytes").hasMessageContaining("at least 1048576");
    }

    @Test
    void shouldPreallocateFourMebibytesUnlessSwitchedOffOrTooSmall() {
        assertThat(BrokerConfig.defaults().intValue(BrokerConfig.LOG_PREALLOCATE_BYTES)).isEqualTo(4 << 20);
        assertThat(BrokerConfig.parse(Map.of("brook.log.preallocate.bytes", "0"))
                .intValue(BrokerConfig.LOG_PREALLOCATE_BYTES)).isZero();
        assertThatThrownBy(() -> BrokerConfig.parse(Map.of("brook.log.preallocate.bytes", "4096")))
                .hasMessageContaining("brook.log.preallocate.bytes").hasMessageContaining("0 (off) or at least 65536");
    }

    @Test
    void shouldCoalesceForcesForTwoMillisecondsUnlessSetWithinZeroToOneSecond() {
        assertThat(BrokerConfig.defaults().longValue(BrokerConfig.LOG_FLUSH_COALESCE_MS)).isEqualTo(2);
        assertThat(BrokerConfig.parse(Map.of("brook.log.flush.coalesce.ms", "0"))
                .longValue(BrokerConfig.LOG_FLUSH_COALESCE_MS)).isZero();
        assertThatThrownBy(() -> BrokerConfig.parse(Map.of("brook.log.flush.coalesce.ms", "1001")))
                .hasMessageContaining("brook.log.flush.coalesce.ms");
        assertThatThrownBy(() -> BrokerConfig.parse(Map.of("brook.log.flush.coalesce.ms", "-1")))
                .hasMessageContaining("brook.log.flush.coalesce.ms");
    }

    @Test
    void shouldCoalesceUnreadForcesForTwentyMillisecondsUnlessSetWithinZeroToOneSecond() {
        assertThat(BrokerConfig.defaults().longValue(BrokerConfig.LOG_FLUSH_COALESCE_UNREAD_MS)).isEqualTo(20);
        assertThat(BrokerConfig.parse(Map.of("brook.log.flush.coalesce.unread.ms", "0"))
                .longValue(BrokerConfig.LOG_FLUSH_COALESCE_UNREAD_MS)).isZero();
        assertThatThrownBy(() -> BrokerConfig.parse(Map.of("brook.log.flush.coalesce.unread.ms", "1001")))
                .hasMessageContaining("brook.log.flush.coalesce.unread.ms");
    }

    @Test
    void shouldPreferLogDirsOverLogDir() {
        BrokerConfig c = BrokerConfig.parse(Map.of("log.dir", "/a", "log.dirs", "/b"));
        assertThat(c.dataDir()).isEqualTo(Path.of("/b"));
        assertThat(BrokerConfig.parse(Map.of("log.dir", "/a")).dataDir()).isEqualTo(Path.of("/a"));
    }

    @Test
    void shouldReportSecuritySettingsItDoesNotReadAsUnknown() {
        BrokerConfig c = BrokerConfig.parse(Map.of("ssl.provider", "SunJSSE",
                "listener.name.plaintext.max.connections", "5", "listener.name.plaintext.foo.bar", "1",
                "listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config", "x", "ssl.keystore.type", "PKCS12",
                "listener.name.sasl_ssl.ssl.keystore.location", "/k.p12"));
        assertThat(c.unknownKeys()).containsExactlyInAnyOrder("ssl.provider", "listener.name.plaintext.foo.bar");
        assertThat(c.securitySettings()).containsKey("ssl.provider");
    }

    @Test
    void shouldCollectUnknownKeysWithoutFailing() {
        BrokerConfig c = BrokerConfig.parse(Map.of("zookeeper.connect", "x:2181", "num.partitions", "2"));
        assertThat(c.unknownKeys()).containsExactly("zookeeper.connect");
        assertThat(c.numPartitions()).isEqualTo(2);
    }

    @Test
    void shouldTellKafkasSettingsItDoesNotImplementFromKeysNobodyDefines() {
        BrokerConfig c = BrokerConfig.parse(Map.of("background.threads", "10", "num.replica.fetchers", "2",
                "ssl.provider", "SunJSSE", "listener.name.external.ssl.provider", "SunJSSE",
                "num.netwrok.threads", "3", "listener.name.external.foo.bar", "1", "zookeeper.connect", "x:2181",
                "num.network.threads", "3"));
        assertThat(c.unknownKeys()).containsExactlyInAnyOrder("background.threads", "num.replica.fetchers",
                "ssl.provider", "listener.name.external.ssl.provider", "num.netwrok.threads",
                "listener.name.external.foo.bar", "zookeeper.connect");
        assertThat(c.unimplementedKafkaKeys()).containsExactly("background.threads",
                "listener.name.external.ssl.provider", "num.replica.fetchers", "ssl.provider");
    }

    @Test
    void shouldKnowKafkasBrokerSettingNames() {
        assertThat(KafkaSettingNames.size()).isGreaterThan(300);
        assertThat(KafkaSettingNames.isKafkas("log.cleaner.threads")).isTrue();
        assertThat(KafkaSettingNames.isKafkas("num.network.threads")).isTrue();
        assertThat(KafkaSettingNames.isKafkas("listener.name.sasl_ssl.ssl.provider")).isTrue();
        assertThat(KafkaSettingNames.isKafkas("listener.name.ssl.provider")).isFalse();
        assertThat(KafkaSettingNames.isKafkas("listener.name.")).isFalse();
        assertThat(KafkaSettingNames.isKafkas("zookeeper.connect")).as("Kafka 4 has no ZooKeeper").isFalse();
        assertThat(KafkaSettingNames.isKafkas("brook.log.flush.threads")).isFalse();
    }

    @Test
    void shouldRejectInvalidValuesWithMessageNamingKeyAndValue() {
        assertThatThrownBy(() -> BrokerConfig.parse(Map.of("num.partitions", "zero")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("num.partitions").hasMessageContaining("'zero'");
        assertThatThrownBy(() -> BrokerConfig.parse(Map.of("num.partitions", "0")))
                .hasMessageContaining("num.partitions").hasMessageContaining("at least 1");
        assertThatThrownBy(() -> BrokerConfig.parse(Map.of("auto.create.topics.enable", "yes")))
                .hasMessageContaining("auto.create.topics.enable").hasMessageContaining("true or false");
        assertThatThrownBy(() -> BrokerConfig.parse(Map.of("socket.request.max.bytes", "4294967296")))
                .hasMessageContaining("socket.request.max.bytes");
        assertThatThrownBy(() -> BrokerConfig.parse(Map.of("default.replication.factor", "3")))
                .hasMessageContaining("single node");
        assertThatThrownBy(() -> BrokerConfig.parse(Map.of("compression.type", "brotli")))
                .hasMessageContaining("compression.type").hasMessageContaining("zstd");
    }

    @Test
    void shouldRejectListenersBrookCannotServe() {
        assertThatThrownBy(() -> BrokerConfig.parse(Map.of("listeners", "INTERNAL://127.0.0.1:9093")))
                .hasMessageContaining("no security protocol for listener INTERNAL");
        assertThatThrownBy(() -> BrokerConfig.parse(Map.of("listeners", "PLAINTEXT://a:1,PLAINTEXT://b:2")))
                .hasMessageContaining("appears twice");
        assertThatThrownBy(() -> BrokerConfig.parse(Map.of("listeners", "PLAINTEXT://a:1,SSL://b:1")))
                .hasMessageContaining("port 1 appears twice");
        assertThatThrownBy(() -> BrokerConfig.parse(Map.of("listeners", "PLAINTEXT://a:1",
                "advertised.listeners", "SSL://b:2")))
                .hasMessageContaining("SSL is not one of listeners");
        assertThatThrownBy(() -> BrokerConfig.parse(Map.of("listeners", "A://a:1",
                "listener.security.protocol.map", "A:TLS")))
                .hasMessageContaining("listener.security.protocol.map");
        assertThatThrownBy(() -> BrokerConfig.parse(Map.of("listeners", "PLAINTEXT://127.0.0.1:70000")))
                .hasMessageContaining("65535");
        assertThatThrownBy(() -> BrokerConfig.parse(Map.of("listeners", "127.0.0.1:9092")))
                .hasMessageContaining("NAME://host:port");
        assertThatThrownBy(() -> BrokerConfig.parse(Map.of("listeners", "PLAINTEXT://0.0.0.0:9092")))
                .hasMessageContaining("advertised.listeners");
        BrokerConfig wildcard = BrokerConfig.parse(Map.of("listeners", "PLAINTEXT://0.0.0.0:9092",
                "advertised.listeners", "PLAINTEXT://host.example:9092"));
        assertThat(wildcard.listener().wildcardHost()).isTrue();
    }

    @Test
    void shouldReadSeveralNamedListenersWithTheirProtocolsAndAdvertisedAddresses() {
        BrokerConfig c = BrokerConfig.parse(Map.of(
                "listeners", "PLAINTEXT://127.0.0.1:9092,client://0.0.0.0:9094,SSL://127.0.0.1:9093",
                "listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CLIENT:SASL_SSL,SSL:SSL",
                "advertised.listeners", "CLIENT://broker.example:19094",
                "listener.name.client.plain.sasl.jaas.config", "x required;",
                "ssl.keystore.location", "/k.p12"));
        Listeners l = c.listeners();
        assertThat(l.bound()).extracting(Listener::name).containsExactly("PLAINTEXT", "CLIENT", "SSL");
        assertThat(l.protocol("CLIENT")).isEqualTo(SecurityProtocol.SASL_SSL);
        assertThat(l.protocol("SSL")).isEqualTo(SecurityProtocol.SSL);
        assertThat(l.advertised("CLIENT")).isEqualTo(new Listener("CLIENT", "broker.example", 19094));
        assertThat(l.advertised("PLAINTEXT")).isNull();
        assertThat(c.listener().name()).isEqualTo("PLAINTEXT");
        // security settings are kept for the security package, not reported as unknown
        assertThat(c.unknownKeys()).isEmpty();
        assertThat(c.securitySettings()).containsKeys("listener.name.client.plain.sasl.jaas.config",
                "ssl.keystore.location");
    }

    @Test
    void shouldParseBracketedIpv6Host() {
        BrokerConfig c = BrokerConfig.parse(Map.of("listeners", "PLAINTEXT://[::1]:9092"));
        assertThat(c.listener().host()).isEqualTo("::1");
        assertThat(c.listener().toString()).isEqualTo("PLAINTEXT://[::1]:9092");
    }

    @Test
    void shouldRejectConflictingSynonyms() {
        assertThatThrownBy(() -> BrokerConfig.parse(Map.of("node.id", "1", "broker.id", "2")))
                .hasMessageContaining("node.id").hasMessageContaining("broker.id");
        assertThat(BrokerConfig.parse(Map.of("node.id", "4", "broker.id", "4")).nodeId()).isEqualTo(4);
    }

    @Test
    void shouldRejectSeveralDataDirectories() {
        assertThatThrownBy(() -> BrokerConfig.parse(Map.of("log.dirs", "/a,/b")))
                .hasMessageContaining("exactly one data directory");
    }

    @Test
    void shouldKnowAndCheckTheGroupCoordinatorSettings() {
        BrokerConfig c = BrokerConfig.parse(Map.of("group.min.session.timeout.ms", "1000",
                "offsets.topic.num.partitions", "4"));
        assertThat(c.unknownKeys()).isEmpty();
        assertThat(c.groupCoordinator().minSessionTimeoutMs()).isEqualTo(1000);
        assertThat(c.groupCoordinator().offsetsTopicPartitions()).isEqualTo(4);
        assertThatThrownBy(() -> BrokerConfig.parse(Map.of("group.max.size", "many")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("group.max.size");
    }

    @Test
    void shouldBoundWhatClientsMayMakeTheBrokerHoldWithKafkasNames() {
        BrokerConfig c = BrokerConfig.defaults();
        assertThat(c.fetchMaxBytes()).isEqualTo(57_671_680);
        assertThat(c.maxConnectionsPerIp()).isEqualTo(Integer.MAX_VALUE);
        assertThat(c.maxConnectionsPerIpOverrides()).isEmpty();
        assertThat(c.queuedMaxRequestBytes()).isEqualTo(BrokerConfig.DEFAULT_QUEUED_MAX_REQUEST_BYTES)
                .isGreaterThanOrEqualTo(c.socketRequestMaxBytes());
        assertThat(c.connectionMaxInflightRequests()).isEqualTo(16);
        assertThat(c.requestReceiveTimeoutMs()).isEqualTo(30_000L);
    }

    @Test
    void shouldRejectAQueuedRequestBoundBelowTheLargestRequest() {
        assertThatThrownBy(() -> BrokerConfig.parse(Map.of("queued.max.request.bytes", "1000")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("socket.request.max.bytes");
        assertThat(BrokerConfig.parse(Map.of("queued.max.request.bytes", "-1")).queuedMaxRequestBytes()).isEqualTo(-1);
    }

    @Test
    void shouldParseConnectionOverridesPerAddress() throws Exception {
        BrokerConfig c = BrokerConfig.parse(Map.of("max.connections.per.ip", "0",
                "max.connections.per.ip.overrides", "127.0.0.1:5, [::1]:7"));
        assertThat(c.maxConnectionsPerIpOverrides()).containsEntry(java.net.InetAddress.getByName("127.0.0.1"), 5)
                .containsEntry(java.net.InetAddress.getByName("::1"), 7);
        assertThatThrownBy(() -> BrokerConfig.parse(Map.of("max.connections.per.ip", "0")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("max.connections.per.ip.overrides");
        assertThatThrownBy(() -> BrokerConfig.parse(Map.of("max.connections.per.ip.overrides", "127.0.0.1")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("host:count");
    }
}
