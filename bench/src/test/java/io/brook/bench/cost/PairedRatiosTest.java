package io.brook.bench.cost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class PairedRatiosTest {

    @Test
    void shouldTakeTheMedianOfThePairsRatios() {
        PairedRatios r = PairedRatios.of(new double[] {102, 206, 99, 1000, 103}, new double[] {100, 200, 100, 100, 100});

        // ratios 1.02, 1.03, 0.99, 10, 1.03: the outlier pair does not move the median
        assertThat(r.median).isCloseTo(1.03, within(1e-9));
        assertThat(r.low).isLessThanOrEqualTo(r.median);
        assertThat(r.high).isGreaterThanOrEqualTo(r.median);
        assertThat(r.low).isGreaterThanOrEqualTo(0.99);
        assertThat(r.percent()).isEqualTo(String.format(java.util.Locale.ROOT, "+3.0 %% (%+.1f … %+.1f)",
                (r.low - 1) * 100, (r.high - 1) * 100));
    }

    @Test
    void shouldNarrowTheIntervalAsPairsAgree() {
        double[] on = new double[40];
        double[] off = new double[40];
        for (int i = 0; i < on.length; i++) {
            off[i] = 100 + i; // drifting machine
            on[i] = off[i] * (1.01 + (i % 2 == 0 ? 0.002 : -0.002));
        }
        PairedRatios r = PairedRatios.of(on, off);

        assertThat(r.median).isCloseTo(1.01, within(0.0021));
        assertThat(r.high - r.low).isLessThanOrEqualTo(0.0041);
    }

    @Test
    void shouldTakeTheMiddleOfAnEvenCount() {
        assertThat(PairedRatios.median(new double[] {4, 1, 3, 2})).isEqualTo(2.5);
    }
}
