package io.brook.junit;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.Brook;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/** A data directory asked for on the annotation outlives its broker: the next broker starts from it. */
@Timeout(60)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@BrookTest(perMethod = true, dataDir = PersistentDataDirTest.DIR, topics = "kept")
class PersistentDataDirTest {
    static final String DIR = "target/brook-persistent-test";

    @BeforeAll
    static void emptyDirectory() throws Exception {
        deleteRecursively(Path.of(DIR));
    }

    @AfterAll
    static void removeDirectory() throws Exception {
        deleteRecursively(Path.of(DIR));
    }

    private static void deleteRecursively(Path dir) throws Exception {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(f);
            }
        }
    }

    @Test
    @Order(1)
    void theFirstBrokerWrites(Brook brook) throws Exception {
        assertThat(brook.dataDir()).isEqualTo(Path.of(DIR));
        try (KafkaProducer<String, String> p = Clients.producer(brook.bootstrapServers(), Map.of())) {
            assertThat(p.send(new ProducerRecord<>("kept", "written-first")).get(30, TimeUnit.SECONDS).offset()).isZero();
        }
    }

    @Test
    @Order(2)
    void theNextBrokerReadsWhatTheFirstLeft(Brook brook) {
        assertThat(Files.isDirectory(Path.of(DIR, "kept-0"))).isTrue();
        assertThat(Clients.readAll(brook.bootstrapServers(), "kept", 1)).containsExactly("written-first");
    }
}
