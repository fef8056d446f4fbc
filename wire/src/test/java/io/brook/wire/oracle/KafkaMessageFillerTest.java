package io.brook.wire.oracle;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.protocol.ApiMessage;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Checks the harness before it judges the codec: a filled message must survive a round trip
 * through kafka-clients alone (otherwise the filler set a field the version does not carry), and
 * must differ from the all-defaults message (otherwise the oracle would compare nothing).
 */
class KafkaMessageFillerTest {

    private static final long SEED = Long.getLong("oracle.seed", 0x5EED_0F_B100CL);

    @TestFactory
    Stream<DynamicTest> filledMessagesRoundTripThroughKafkaClients() {
        List<DynamicTest> tests = new ArrayList<>();
        for (ApiMessageType type : ApiMessageType.values()) {
            if (type.lowestSupportedVersion() > KafkaWire.highestVersion(type)) {
                continue; // removed API (LeaderAndIsr and friends): no version left to write
            }
            for (short v = type.lowestSupportedVersion(); v <= KafkaWire.highestVersion(type); v++) {
                for (boolean request : new boolean[] {true, false}) {
                    short version = v;
                    String name = type.name() + (request ? " request" : " response") + " v" + v;
                    tests.add(DynamicTest.dynamicTest(name, () -> {
                        for (int i = 0; i < 5; i++) {
                            long seed = SEED + i;
                            ApiMessage empty = request ? type.newRequest() : type.newResponse();
                            ApiMessage filled = new KafkaMessageFiller(seed).fill(empty, version);
                            byte[] bytes = KafkaWire.write(filled, version);
                            assertThat(KafkaWire.read(type, request, bytes, version))
                                    .as("%s seed %d", name, seed)
                                    .isEqualTo(filled);
                        }
                    }));
                }
            }
        }
        return tests.stream();
    }

    @TestFactory
    Stream<DynamicTest> filledMessagesDifferFromDefaults() {
        List<DynamicTest> tests = new ArrayList<>();
        for (ApiMessageType type : ApiMessageType.values()) {
            if (type.lowestSupportedVersion() > KafkaWire.highestVersion(type)) {
                continue; // removed API (LeaderAndIsr and friends): no version left to write
            }
            short version = KafkaWire.highestVersion(type);
            for (boolean request : new boolean[] {true, false}) {
                ApiMessage empty = request ? type.newRequest() : type.newResponse();
                if (KafkaMessageFiller.schemaOf(empty.getClass(), version).numFields() <= 1) {
                    continue; // only the tagged-field section: nothing to fill
                }
                String name = type.name() + (request ? " request" : " response") + " v" + version;
                tests.add(DynamicTest.dynamicTest(name, () -> {
                    boolean anyDifferent = false;
                    for (int i = 0; i < 5 && !anyDifferent; i++) {
                        anyDifferent = !new KafkaMessageFiller(SEED + i).fill(empty, version).equals(empty);
                    }
                    assertThat(anyDifferent).as(name).isTrue();
                }));
            }
        }
        return tests.stream();
    }
}
