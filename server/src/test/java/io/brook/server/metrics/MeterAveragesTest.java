package io.brook.server.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.Clock;
import com.codahale.metrics.Meter;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class MeterAveragesTest {

    /** A clock moved by hand. */
    private static final class ManualClock extends Clock {
        long nanos = 1_000;

        @Override
        public long getTick() {
            return nanos;
        }
    }

    @Test
    void shouldGiveDropwizardsRatesTickForTick() {
        ManualClock clock = new ManualClock();
        Meter dropwizard = new Meter(clock);
        Meter ours = new Meter(new MeterAverages(clock), clock);
        SplittableRandom random = new SplittableRandom(7);
        for (int step = 0; step < 2_000; step++) {
            long n = random.nextInt(100);
            dropwizard.mark(n);
            ours.mark(n);
            // mostly within a tick interval, sometimes across several, now and then a long silence
            int r = random.nextInt(100);
            clock.nanos += r < 90 ? TimeUnit.MILLISECONDS.toNanos(random.nextInt(900))
                    : r < 99 ? TimeUnit.SECONDS.toNanos(random.nextInt(30)) : TimeUnit.HOURS.toNanos(2);
            if (step % 7 == 0) {
                assertThat(ours.getOneMinuteRate()).isEqualTo(dropwizard.getOneMinuteRate());
                assertThat(ours.getFiveMinuteRate()).isEqualTo(dropwizard.getFiveMinuteRate());
                assertThat(ours.getFifteenMinuteRate()).isEqualTo(dropwizard.getFifteenMinuteRate());
                assertThat(ours.getCount()).isEqualTo(dropwizard.getCount());
            }
        }
        assertThat(ours.getOneMinuteRate()).isEqualTo(dropwizard.getOneMinuteRate());
        assertThat(ours.getFifteenMinuteRate()).isEqualTo(dropwizard.getFifteenMinuteRate());
    }

    @Test
    void shouldGiveDropwizardsFiguresWhenMarkedWithTheCallersTime() {
        ManualClock clock = new ManualClock();
        Meter dropwizard = new Meter(clock);
        StampedMeter ours = new StampedMeter(clock);
        SplittableRandom random = new SplittableRandom(11);
        for (int step = 0; step < 2_000; step++) {
            long n = random.nextInt(100);
            dropwizard.mark(n);
            if (step % 2 == 0) {
                ours.mark(n, clock.getTick());
            } else {
                ours.mark(n);
            }
            clock.nanos += random.nextInt(100) < 95 ? TimeUnit.MILLISECONDS.toNanos(random.nextInt(900))
                    : TimeUnit.SECONDS.toNanos(random.nextInt(60));
            if (step % 5 == 0) {
                assertThat(ours.getCount()).isEqualTo(dropwizard.getCount());
                assertThat(ours.getMeanRate()).isEqualTo(dropwizard.getMeanRate());
                assertThat(ours.getOneMinuteRate()).isEqualTo(dropwizard.getOneMinuteRate());
                assertThat(ours.getFiveMinuteRate()).isEqualTo(dropwizard.getFiveMinuteRate());
                assertThat(ours.getFifteenMinuteRate()).isEqualTo(dropwizard.getFifteenMinuteRate());
            }
        }
        assertThat(new StampedMeter(clock).getMeanRate()).isZero();
    }

    @Test
    void shouldRateASteadyStreamAtItsPace() {
        ManualClock clock = new ManualClock();
        Meter meter = new Meter(new MeterAverages(clock), clock);
        for (int s = 0; s < 600; s++) {
            meter.mark(100);
            clock.nanos += TimeUnit.SECONDS.toNanos(1);
        }
        assertThat(meter.getOneMinuteRate()).isBetween(95.0, 105.0);
        assertThat(meter.getFiveMinuteRate()).isBetween(95.0, 105.0);
    }
}
