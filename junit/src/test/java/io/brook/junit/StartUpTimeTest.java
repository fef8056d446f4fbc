package io.brook.junit;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.Brook;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Measures, without asserting on the clock: how long each of several brokers takes to start
 * (built as the extension builds them, with the fault seams), and the time from asking for a
 * broker to the first acknowledged produce. The figures go to the test's log
 * (target/surefire-reports/io.brook.junit.StartUpTimeTest-output.txt).
 */
@Timeout(120)
class StartUpTimeTest {
    private static final Logger LOG = LoggerFactory.getLogger(StartUpTimeTest.class);

    @Test
    void measuresStartUpAndFirstProduce() throws Exception {
        List<Long> startMicros = new ArrayList<>();
        List<Long> firstProduceMicros = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            long t0 = System.nanoTime();
            try (Brook brook = Brook.builder().port(0).faults(true).start()) {
                long started = System.nanoTime();
                brook.createTopic("t", 1);
                try (KafkaProducer<String, String> p = Clients.producer(brook.bootstrapServers(), Map.of())) {
                    assertThat(p.send(new ProducerRecord<>("t", "v")).get(30, TimeUnit.SECONDS).offset()).isZero();
                }
                startMicros.add(TimeUnit.NANOSECONDS.toMicros(started - t0));
                firstProduceMicros.add(TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - t0));
            }
        }
        for (int i = 0; i < startMicros.size(); i++) {
            LOG.info("broker {}: started in {} ms, first acknowledged produce (acks=all, new producer) after {} ms",
                    i + 1, startMicros.get(i) / 1000.0, firstProduceMicros.get(i) / 1000.0);
        }
    }
}
