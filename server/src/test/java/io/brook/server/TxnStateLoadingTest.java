package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.wire.message.CreateTopicsRequest;
import io.brook.wire.message.CreateTopicsRequest.CreatableTopic;
import io.brook.wire.message.InitProducerIdRequest;
import io.brook.wire.message.InitProducerIdResponse;
import io.brook.wire.protocol.Errors;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code __transaction_state} is loaded in the background: the broker serves before it is loaded,
 * the transaction APIs answer COORDINATOR_LOAD_IN_PROGRESS meanwhile, and a stock transactional
 * producer retries until the load is done, then commits.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TxnStateLoadingTest {

    private static final int IDS = 300;

    @TempDir
    Path dataDir;

    private static InitProducerIdResponse init(ProtocolClient c, String id) throws Exception {
        return c.call(new InitProducerIdRequest().transactionalId(id).transactionTimeoutMs(60_000)
                .producerId(-1).producerEpoch((short) -1), (short) 4);
    }

    @Test
    void aTransactionalProducerRetriesWhileTheStateLoadsAndSucceedsAfterwards() throws Exception {
        try (Brook first = Brook.builder().port(0).dataDir(dataDir).config("transaction.state.log.num.partitions", "2").start();
             ProtocolClient c = new ProtocolClient(first.bootstrapServers())) {
            c.call(new CreateTopicsRequest().topics(new ArrayList<>(List.of(new CreatableTopic().name("t")
                    .numPartitions(1).replicationFactor((short) 1)))).timeoutMs(10_000), (short) 5);
            // a new broker loads its new __transaction_state partitions in the background as well
            assertThat(c.initProducerIdPastLoad("id-0", (short) 4).errorCode()).isEqualTo(Errors.NONE.code());
            for (int i = 0; i < IDS; i++) {
                assertThat(init(c, "id-" + i).errorCode()).isEqualTo(Errors.NONE.code());
            }
            assertThat(init(c, "app").errorCode()).isEqualTo(Errors.NONE.code());
        }
        CompletableFuture<Void> gate = new CompletableFuture<>();
        ExecutorService loader = Executors.newSingleThreadExecutor();
        Executor held = task -> gate.thenRunAsync(task, loader);
        try (Brook brook = Brook.builder().port(0).dataDir(dataDir).config("transaction.state.log.num.partitions", "2")
                .groupLoadExecutor(held).start();
             ProtocolClient c = new ProtocolClient(brook.bootstrapServers())) {
            // serving already, but __transaction_state is not loaded
            assertThat(init(c, "app").errorCode()).isEqualTo(Errors.COORDINATOR_LOAD_IN_PROGRESS.code());
            Properties p = new Properties();
            p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, brook.bootstrapServers());
            p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "app");
            p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            p.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, "20");
            p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000");
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
                ExecutorService app = Executors.newSingleThreadExecutor();
                try {
                    CompletableFuture<Void> initialized = CompletableFuture.runAsync(producer::initTransactions, app);
                    // it cannot be done while the load is held: its InitProducerId is answered
                    // COORDINATOR_LOAD_IN_PROGRESS, and it retries
                    assertThat(initialized).isNotDone();
                    gate.complete(null); // the load runs
                    initialized.get(30, TimeUnit.SECONDS);
                    producer.beginTransaction();
                    producer.send(new ProducerRecord<>("t", 0, "k", "v")).get(30, TimeUnit.SECONDS);
                    producer.commitTransaction();
                } finally {
                    app.shutdownNow();
                }
            }
            // the ids written before the restart are all back
            assertThat(init(c, "id-" + (IDS - 1)).producerEpoch()).isEqualTo((short) 1);
        } finally {
            loader.shutdownNow();
        }
    }
}
