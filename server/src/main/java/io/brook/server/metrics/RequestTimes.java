package io.brook.server.metrics;

import com.codahale.metrics.Histogram;
import com.codahale.metrics.Reservoir;
import com.codahale.metrics.Snapshot;
import com.codahale.metrics.WeightedSnapshot;
import com.codahale.metrics.WeightedSnapshot.WeightedSample;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;
import java.util.concurrent.atomic.LongAdder;

/**
 * The {@value #TIMES} time histograms of one request type ({@code TotalTimeMs},
 * {@code RequestQueueTimeMs}, {@code LocalTimeMs}, {@code RemoteTimeMs},
 * {@code ResponseQueueTimeMs}, {@code ResponseSendTimeMs}), fed with one update per request.
 *
 * <p>Each histogram reads a forward-decaying priority sample, the algorithm of Dropwizard's
 * {@code ExponentiallyDecayingReservoir} and of the Yammer histograms Kafka's request metrics use
 * (Cormode et al., "Forward Decay"): {@value #SIZE} samples, weights growing as
 * {@code exp(0.015 × age in seconds)}, so the quantiles describe about the last five minutes. A
 * request's priority is its weight over a uniform random number; the sample keeps the
 * {@value #SIZE} highest. Six reservoirs fed the same requests would each draw their own random
 * numbers; here one draw serves the request's six times, which keeps each histogram's sample
 * exactly as likely as before (each is a sample of the same requests) and makes the six samples
 * the same requests: one weight ({@code exp}), one random number and one comparison with the
 * sample's smallest priority per request instead of six of each and six clock reads (the time
 * is the request's own answer time). A request that enters the sample (rarely, once it is full)
 * allocates one entry.
 *
 * <p>Concurrency: event loops update at once without locks (a concurrent skip list keyed by
 * priority, as Dropwizard's lock-free reservoir); once an hour the priorities are rescaled to a
 * new landmark by whichever update notices, which installs a new state by compare-and-set, and
 * updates racing with that may be lost, as in Dropwizard's.
 */
final class RequestTimes {

    static final int TIMES = 6;
    static final int SIZE = 1028;
    private static final double ALPHA = 0.015;
    private static final double ALPHA_PER_NANO = ALPHA / TimeUnit.SECONDS.toNanos(1);
    private static final long RESCALE_NANOS = TimeUnit.HOURS.toNanos(1);
    private static final AtomicReferenceFieldUpdater<RequestTimes, State> STATE =
            AtomicReferenceFieldUpdater.newUpdater(RequestTimes.class, State.class, "state");

    private final LongAdder count = new LongAdder();
    private volatile State state;

    /** {@code nowNanos}: {@link System#nanoTime()}, the landmark of the first weights. */
    RequestTimes(long nowNanos) {
        this.state = new State(nowNanos, new ConcurrentSkipListMap<>(), 0);
    }

    /** One request's times in milliseconds, in the order of the class comment, answered at {@code nowNanos}. */
    void update(long nowNanos, long total, long requestQueue, long local, long remote, long responseQueue,
            long responseSend) {
        count.increment();
        State s = state;
        if (nowNanos - s.landmark >= RESCALE_NANOS) {
            s = rescale(s, nowNanos);
        }
        double weight = Math.exp((nowNanos - s.landmark) * ALPHA_PER_NANO);
        double priority = weight / ThreadLocalRandom.current().nextDouble();
        if (s.filled >= SIZE && s.samples.firstKey() >= priority) {
            return;
        }
        s.add(priority, new Sample(weight, total, requestQueue, local, remote, responseQueue, responseSend));
    }

    /** The histogram of time {@code index} (0: TotalTimeMs ... 5: ResponseSendTimeMs), to register. */
    Histogram histogram(int index) {
        return new View(this, index);
    }

    long count() {
        return count.sum();
    }

    Snapshot snapshot(int index) {
        Map<Double, Sample> samples = state.samples;
        List<WeightedSample> column = new ArrayList<>(samples.size());
        for (Sample s : samples.values()) {
            column.add(new WeightedSample(s.times[index], s.weight));
        }
        return new WeightedSnapshot(column);
    }

    private State rescale(State old, long nowNanos) {
        double factor = Math.exp(-ALPHA_PER_NANO * (nowNanos - old.landmark));
        ConcurrentSkipListMap<Double, Sample> samples = new ConcurrentSkipListMap<>();
        if (factor > 0) {
            for (Map.Entry<Double, Sample> e : old.samples.entrySet()) {
                double weight = e.getValue().weight * factor;
                if (weight > 0) {
                    samples.put(e.getKey() * factor, new Sample(weight, e.getValue().times));
                }
            }
        }
        State fresh = new State(nowNanos, samples, samples.size());
        return STATE.compareAndSet(this, old, fresh) ? fresh : state;
    }

    /** The sample since a landmark: priorities relative to it. */
    private static final class State {
        private static final AtomicIntegerFieldUpdater<State> FILLED =
                AtomicIntegerFieldUpdater.newUpdater(State.class, "filled");
        final long landmark;
        final ConcurrentSkipListMap<Double, Sample> samples;
        volatile int filled;

        State(long landmark, ConcurrentSkipListMap<Double, Sample> samples, int filled) {
            this.landmark = landmark;
            this.samples = samples;
            this.filled = filled;
        }

        void add(double priority, Sample sample) {
            // once full, every sample added pushes the lowest out (and the count stays put)
            if (samples.putIfAbsent(priority, sample) == null && (filled >= SIZE || FILLED.incrementAndGet(this) > SIZE)) {
                samples.pollFirstEntry();
            }
        }
    }

    /** One request in the sample: its weight and its times. */
    private static final class Sample {
        final double weight;
        final long[] times;

        Sample(double weight, long... times) {
            this.weight = weight;
            this.times = times;
        }
    }

    /**
     * One of the six histograms, as the registry publishes it (JMX, Prometheus): its count and
     * snapshot come from the shared sample; it is fed only through {@link RequestTimes#update}.
     */
    private static final class View extends Histogram {
        private final RequestTimes owner;

        View(RequestTimes owner, int index) {
            super(new Reservoir() {
                @Override
                public int size() {
                    return owner.state.samples.size();
                }

                @Override
                public void update(long value) {
                    throw new UnsupportedOperationException("fed through RequestTimes.update");
                }

                @Override
                public Snapshot getSnapshot() {
                    return owner.snapshot(index);
                }
            });
            this.owner = owner;
        }

        @Override
        public void update(long value) {
            throw new UnsupportedOperationException("fed through RequestTimes.update");
        }

        @Override
        public long getCount() {
            return owner.count();
        }
    }
}
