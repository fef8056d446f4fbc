package io.brook.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The overload scenario's short version, with max.connections=300 so that the limit is reached
 * with a few hundred connections. The throughput ratio is measured over two-second windows on a
 * machine the test shares with others: reported, not asserted.
 */
class OverloadTest {

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void brokerServesUnderManyConnectionsAndEnforcesTheLimit(@TempDir Path work) throws Exception {
        ScenarioResult r = TestEnv.run(new Overload(Overload.Params.test()), work);

        assertThat(r.error()).as(r.toString()).isNull();
        for (String check : new String[] {Overload.ALIVE, Overload.MEMORY, Overload.PIPELINES, Overload.PRODUCER,
                Overload.LIMIT, Overload.SERVED_AT_LIMIT, Overload.SLOT_REUSED, BrokerLog.NO_OOM}) {
            assertThat(r.check(check).passed()).as(check + " in " + r).isTrue();
        }
    }
}
