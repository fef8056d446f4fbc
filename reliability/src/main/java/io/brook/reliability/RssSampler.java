package io.brook.reliability;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Samples a process's {@link ProcStatus} once a second on a timer thread, for memory bounds:
 * the peak (VmHWM) and whether resident memory still grew in the second half of a run.
 */
final class RssSampler implements AutoCloseable {
    private final long pid;
    private final ScheduledFuture<?> task;
    private final List<ProcStatus> samples = new ArrayList<>();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "rss-sampler");
        t.setDaemon(true);
        return t;
    });

    RssSampler(long pid) {
        this.pid = pid;
        this.task = timer.scheduleAtFixedRate(this::sample, 0, 1, TimeUnit.SECONDS);
    }

    private void sample() {
        try {
            ProcStatus s = ProcStatus.of(pid);
            synchronized (this) {
                samples.add(s);
            }
        } catch (IOException | RuntimeException e) {
            // the process is gone; the scenario notices that itself
        }
    }

    synchronized List<ProcStatus> samples() {
        return List.copyOf(samples);
    }

    /** The largest VmRSS among the samples whose index is in [from, to) as fractions of the run. */
    synchronized long maxRss(double from, double to) {
        int n = samples.size();
        long max = 0;
        for (int i = (int) (from * n); i < (int) Math.ceil(to * n) && i < n; i++) {
            max = Math.max(max, samples.get(i).rssBytes());
        }
        return max;
    }

    /**
     * Adds the memory figures and the check that memory stayed bounded: VmHWM within
     * {@code limitBytes}, and with {@code noGrowth} (a steady load) VmRSS in the second half of
     * the run at most 25 % (+64 MiB) above its largest value in the first half.
     */
    void report(ScenarioResult result, String check, long limitBytes, boolean noGrowth) {
        sample();
        List<ProcStatus> s = samples();
        if (s.isEmpty()) {
            result.check(check, false, "no memory sample: the process was gone");
            return;
        }
        long hwm = s.get(s.size() - 1).peakRssBytes();
        long firstHalf = maxRss(0, 0.5);
        long secondHalf = maxRss(0.5, 1);
        for (double q : new double[] {0.25, 0.5, 0.75, 1.0}) {
            int i = Math.min(s.size() - 1, (int) Math.ceil(q * s.size()) - 1);
            result.figure("broker VmRSS at " + Math.round(q * 100) + " % of the run", mib(s.get(i).rssBytes()), "MiB");
        }
        result.figure("broker VmHWM (peak RSS)", mib(hwm), "MiB");
        boolean bounded = hwm <= limitBytes && (!noGrowth || secondHalf <= firstHalf * 1.25 + (64 << 20));
        result.check(check, bounded, "VmHWM " + Math.round(mib(hwm)) + " MiB (limit " + Math.round(mib(limitBytes))
                + " MiB: heap + as much direct memory + 512 MiB); largest VmRSS " + Math.round(mib(firstHalf))
                + " MiB in the first half, " + Math.round(mib(secondHalf)) + " MiB in the second; " + s.size()
                + " samples");
    }

    static double mib(long bytes) {
        return bytes / (double) (1 << 20);
    }

    @Override
    public void close() {
        task.cancel(false);
        timer.shutdownNow();
    }
}
