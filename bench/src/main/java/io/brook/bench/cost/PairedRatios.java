package io.brook.bench.cost;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The ratio of two conditions measured in adjacent rounds ({@code on[i]} beside {@code off[i]}):
 * the median of the per-pair ratios and a 95 % percentile-bootstrap confidence interval of that
 * median (resampling the pairs, a fixed seed so that a report can be recomputed). Pairing
 * cancels whatever drifts slower than a pair (other load on the machine, the page cache, the JIT);
 * the median keeps one disturbed round from moving the result.
 */
final class PairedRatios {

    private static final int RESAMPLES = 10_000;

    final double median;
    final double low;
    final double high;
    final int pairs;

    private PairedRatios(double median, double low, double high, int pairs) {
        this.median = median;
        this.low = low;
        this.high = high;
        this.pairs = pairs;
    }

    static PairedRatios of(double[] on, double[] off) {
        if (on.length != off.length || on.length == 0) {
            throw new IllegalArgumentException("need as many on as off values, at least one");
        }
        int n = on.length;
        double[] ratios = new double[n];
        for (int i = 0; i < n; i++) {
            ratios[i] = on[i] / off[i];
        }
        double median = median(ratios.clone());
        double[] medians = new double[RESAMPLES];
        double[] resample = new double[n];
        SplittableRandom random = new SplittableRandom(16);
        for (int r = 0; r < RESAMPLES; r++) {
            for (int i = 0; i < n; i++) {
                resample[i] = ratios[random.nextInt(n)];
            }
            medians[r] = median(resample);
        }
        Arrays.sort(medians);
        return new PairedRatios(median, medians[(int) (RESAMPLES * 0.025)], medians[(int) (RESAMPLES * 0.975) - 1], n);
    }

    /** The median; sorts {@code values}. */
    static double median(double[] values) {
        Arrays.sort(values);
        int n = values.length;
        return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
    }

    /** "+1.2 % (−0.3 … +2.5)": the median change and its interval, in percent. */
    String percent() {
        return String.format(java.util.Locale.ROOT, "%+.1f %% (%+.1f … %+.1f)",
                (median - 1) * 100, (low - 1) * 100, (high - 1) * 100);
    }
}
