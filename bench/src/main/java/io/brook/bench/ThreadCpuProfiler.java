package io.brook.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.Collection;
import java.util.List;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * A JMH profiler that reports the CPU time the benchmark's threads spent per operation
 * ({@code cpu.time.norm}, ns/op): the kernel's per-thread user + system time of JMH's worker
 * threads over an iteration, divided by the operations they measured. On a machine shared with
 * other work, a thread waiting for a core adds to the wall-clock score ({@code avgt}) but not to
 * this, so it is the figure to read there (caches shared with the other work still slow it).
 *
 * <p>Use: {@code java -jar bench/target/benchmarks.jar MetricsRecordingBenchmark -prof
 * io.brook.bench.ThreadCpuProfiler}.
 */
public final class ThreadCpuProfiler implements InternalProfiler {

    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private long before;

    @Override
    public String getDescription() {
        return "CPU time of the benchmark's worker threads per operation";
    }

    @Override
    public void beforeIteration(BenchmarkParams benchmark, IterationParams iteration) {
        before = workersCpuNanos();
    }

    @Override
    public Collection<? extends Result> afterIteration(BenchmarkParams benchmark, IterationParams iteration,
            IterationResult result) {
        long cpu = workersCpuNanos() - before;
        long ops = result.getMetadata().getMeasuredOps();
        return List.of(new ScalarResult("cpu.time.norm", ops == 0 ? Double.NaN : (double) cpu / ops, "ns/op",
                AggregationPolicy.AVG));
    }

    /** The CPU time of JMH's worker threads so far (a thread that ended no longer counts). */
    private long workersCpuNanos() {
        long sum = 0;
        for (ThreadInfo t : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (t != null && t.getThreadName().contains("jmh-worker")) {
                long cpu = threads.getThreadCpuTime(t.getThreadId());
                if (cpu > 0) {
                    sum += cpu;
                }
            }
        }
        return sum;
    }
}
