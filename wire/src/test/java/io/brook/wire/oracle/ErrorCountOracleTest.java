package io.brook.wire.oracle;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

import io.brook.wire.message.ApiMessages;
import io.brook.wire.protocol.ApiKey;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.Errors;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.AddPartitionsToTxnResponse;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * {@link ApiMessage#countErrors} against kafka-clients' {@code AbstractResponse.errorCounts()},
 * which Kafka's request metrics mark on {@code ErrorsPerSec}: for every response and version both
 * speak, randomly filled responses (random error codes) must count the same codes the same number
 * of times, NONE included (codes Brook does not know count as UNKNOWN_SERVER_ERROR on both sides).
 * AddPartitionsToTxn samples that name a partition twice are skipped: Kafka's response collects
 * the codes in a map by transaction and partition, which a real response never repeats.
 */
class ErrorCountOracleTest {

    private static final int SAMPLES = 10;

    @TestFactory
    Stream<DynamicTest> errorCountsMatchKafka() {
        List<DynamicTest> tests = new ArrayList<>();
        for (ApiKey key : ApiKey.values()) {
            for (short v = OracleCoverage.oracleFrom(key); v <= OracleCoverage.oracleTo(key); v++) {
                short version = v;
                String name = OracleCoverage.pair(key, v) + " response error counts";
                tests.add(DynamicTest.dynamicTest(name, () -> {
                    long seed = OracleSeeds.seed(name);
                    for (int i = 0; i < SAMPLES; i++) {
                        compare(key, version, seed + i, name);
                    }
                }));
            }
        }
        return tests.stream();
    }

    private static void compare(ApiKey key, short version, long seed, String name) {
        ApiMessageType type = ApiMessageType.fromApiKey(key.id());
        org.apache.kafka.common.protocol.ApiMessage filled = new KafkaMessageFiller(seed).fill(type.newResponse(),
                version);
        byte[] bytes = KafkaWire.write(filled, version);
        AbstractResponse kafka = AbstractResponse.parseResponse(ApiKeys.forId(key.id()),
                new ByteBufferAccessor(ByteBuffer.wrap(bytes)), version);
        if (kafka instanceof AddPartitionsToTxnResponse txn && repeatsAPartition(txn)) {
            return;
        }
        Map<String, Integer> expected = new TreeMap<>();
        kafka.errorCounts().forEach((e, n) -> expected.merge(Errors.forCode(e.code()).name(), n, Integer::sum));

        ApiMessage ours = ApiMessages.readResponse(key, version, ByteBuffer.wrap(bytes));
        Map<String, Integer> actual = new TreeMap<>();
        int none = ours.countErrors(version, code -> actual.merge(Errors.forCode(code).name(), 1, Integer::sum));
        if (none > 0) {
            actual.merge(Errors.NONE.name(), none, Integer::sum);
        }
        assertThat(actual).as("%s (seed %d)", name, seed).isEqualTo(expected);
    }

    private static boolean repeatsAPartition(AddPartitionsToTxnResponse r) {
        int listed = 0;
        for (var topic : r.data().resultsByTopicV3AndBelow()) {
            listed += topic.resultsByPartition().size();
        }
        Set<String> transactions = new HashSet<>();
        for (var txn : r.data().resultsByTransaction()) {
            if (!transactions.add(txn.transactionalId())) {
                return true;
            }
            for (var topic : txn.topicResults()) {
                listed += topic.resultsByPartition().size();
            }
        }
        int mapped = 0;
        for (var byTxn : r.errors().values()) {
            mapped += byTxn.size();
        }
        return mapped != listed;
    }
}
