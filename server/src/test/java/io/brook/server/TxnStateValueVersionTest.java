package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.api.FeatureLevels;
import io.brook.testkit.Await;
import io.brook.wire.protocol.Errors;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The finalized {@code transaction.version} a broker starts with is in force in the transaction
 * coordinator: a data directory an older Brook left (level 0) gets {@code __transaction_state}
 * values in version 0, which that Brook can read, although the coordinator's own default is
 * version 1.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TxnStateValueVersionTest {

    @TempDir
    Path dataDir;

    @Test
    void theLevelFinalizedAtStartIsTheVersionOfTheFirstValueWritten() throws Exception {
        try (Brook fresh = Brook.builder().port(0).dataDir(dataDir).start()) {
            assertThat(fresh.features().finalizedLevel(FeatureLevels.TRANSACTION_VERSION)).isEqualTo((short) 2);
        }
        Files.delete(dataDir.resolve("meta").resolve(FeatureLevels.FILE)); // as an older Brook left it
        try (Brook brook = Brook.builder().port(0).dataDir(dataDir).config("transaction.state.log.num.partitions", "1")
                .start(); ProtocolClient c = new ProtocolClient(brook.bootstrapServers())) {
            assertThat(brook.features().finalizedLevel(FeatureLevels.TRANSACTION_VERSION)).isZero();
            // __transaction_state loads in the background after the start: asked again meanwhile
            assertThat(c.initProducerIdPastLoad("older", (short) 4).errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(valueVersions(brook.bootstrapServers())).containsExactly((short) 0);
        }
    }

    /** The version of every value of {@code __transaction_state}'s only partition. */
    private static List<Short> valueVersions(String bootstrap) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("key.deserializer", ByteArrayDeserializer.class.getName());
        p.put("value.deserializer", ByteArrayDeserializer.class.getName());
        List<Short> versions = new ArrayList<>();
        TopicPartition tp = new TopicPartition("__transaction_state", 0);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long end = consumer.endOffsets(List.of(tp)).get(tp);
            Await.until("__transaction_state read", Duration.ofSeconds(30), () -> {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                    versions.add(ByteBuffer.wrap(r.value()).getShort());
                }
                return consumer.position(tp) >= end;
            });
        }
        return versions;
    }
}
