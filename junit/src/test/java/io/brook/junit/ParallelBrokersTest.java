package io.brook.junit;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.Brook;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Four tests at the same time in JUnit's parallel mode (the module's surefire configuration
 * enables it with four threads), each with its own broker: they meet at a barrier while all four
 * brokers run, so the test proves they ran side by side, on distinct ports and directories, and
 * that each saw only its own records, and that a crash of two of them touched no other.
 */
@Timeout(120)
@Execution(ExecutionMode.CONCURRENT)
@BrookTest(perMethod = true, topics = "t")
class ParallelBrokersTest {
    private static final int TESTS = 4;
    private static final CyclicBarrier ALL_RUNNING = new CyclicBarrier(TESTS);
    private static final Set<Integer> PORTS = ConcurrentHashMap.newKeySet();
    private static final Set<String> DIRS = ConcurrentHashMap.newKeySet();

    @RepeatedTest(TESTS)
    void eachTestHasItsOwnBroker(Brook brook, RepetitionInfo repetition) throws Exception {
        PORTS.add(brook.port());
        DIRS.add(brook.dataDir().toString());
        ALL_RUNNING.await(60, TimeUnit.SECONDS);
        String mine = "from-" + brook.port();
        try (KafkaProducer<String, String> p = Clients.producer(brook.bootstrapServers(), Map.of())) {
            p.send(new ProducerRecord<>("t", mine)).get(30, TimeUnit.SECONDS);
        }
        if (repetition.getCurrentRepetition() % 2 == 0) {
            brook.crash();
            brook.start();
        }
        assertThat(Clients.readAll(brook.bootstrapServers(), "t", 1)).containsExactly(mine);
    }

    @AfterAll
    static void brokersWereDistinct() {
        assertThat(PORTS).hasSize(TESTS);
        assertThat(DIRS).hasSize(TESTS);
    }
}
