package io.brook.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StatsTest {

    @Test
    void nearestRankPercentiles() {
        List<Integer> samples = new ArrayList<>();
        for (int i = 100; i >= 1; i--) {
            samples.add(i);
        }
        Stats s = Stats.of(samples);
        assertThat(s).isEqualTo(new Stats(100, 1, 50, 99, 100));
    }

    @Test
    void oneSampleIsEveryStatistic() {
        assertThat(Stats.of(List.of(7.5))).isEqualTo(new Stats(1, 7.5, 7.5, 7.5, 7.5));
    }

    @Test
    void noSamplesAreReportedAsSuch() {
        ScenarioResult r = new ScenarioResult("s", "size");
        Stats.of(List.of()).addTo(r, "time", "ms");
        assertThat(r.figure("time").value()).isEqualTo("no samples");
    }
}
