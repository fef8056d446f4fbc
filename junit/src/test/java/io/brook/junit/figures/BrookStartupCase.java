package io.brook.junit.figures;

import io.brook.junit.Broker;
import io.brook.junit.BrookTest;
import org.junit.jupiter.api.RepeatedTest;

/**
 * The extension as a user writes it: a broker for each test with topic "t" created, and a first
 * produce. Not a test of the build (its name keeps Surefire away): {@link StartupFigures} runs it.
 */
@BrookTest(perMethod = true, topics = "t")
class BrookStartupCase {

    @RepeatedTest(StartupFigures.BROKERS_IN_SEQUENCE)
    void firstProduce(@Broker String bootstrapServers) throws Exception {
        FirstProduce.produce(bootstrapServers);
    }
}
