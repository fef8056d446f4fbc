package io.brook.bench.cost;

import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;

/**
 * The CPU time and allocated bytes of every Java thread of this JVM except the load generator's
 * (the thread that reads a {@link Sample}): with the brokers embedded in the same JVM, that is
 * the brokers' own work (event loops, group commit, schedulers), counted per thread by the kernel
 * ({@code CLOCK_THREAD_CPUTIME_ID}: user and system time, nanoseconds), so other processes on
 * the machine change it far less than they change wall-clock throughput. Neither GC nor JIT
 * threads are Java threads: {@link Sample#processCpuNanos} adds them back (the process's CPU
 * less the load generator's), a coarser figure that includes what allocation costs.
 *
 * <p>A thread that starts between two samples counts from zero; one that ends between them
 * loses what it used in that interval (the brokers' threads live as long as the brokers).
 */
final class BrokerCpu {

    private final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private final com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    BrokerCpu() {
        if (!threads.isThreadCpuTimeSupported() || !threads.isThreadAllocatedMemorySupported()) {
            throw new IllegalStateException("this JVM measures no per-thread CPU time or allocation");
        }
        threads.setThreadCpuTimeEnabled(true);
        threads.setThreadAllocatedMemoryEnabled(true);
    }

    /** The counters now, taken on (and excluding) the calling thread. */
    Sample sample() {
        long self = Thread.currentThread().getId();
        long[] ids = threads.getAllThreadIds();
        long[] cpu = threads.getThreadCpuTime(ids);
        long[] allocated = threads.getThreadAllocatedBytes(ids);
        Map<Long, long[]> perThread = new HashMap<>(ids.length * 2);
        for (int i = 0; i < ids.length; i++) {
            if (ids[i] != self && cpu[i] >= 0) {
                perThread.put(ids[i], new long[] {cpu[i], Math.max(0, allocated[i])});
            }
        }
        long process = os.getProcessCpuTime() - threads.getCurrentThreadCpuTime();
        return new Sample(perThread, process);
    }

    /** What {@link #sample} read. */
    static final class Sample {
        private final Map<Long, long[]> perThread;
        final long processCpuNanos;

        Sample(Map<Long, long[]> perThread, long processCpuNanos) {
            this.perThread = perThread;
            this.processCpuNanos = processCpuNanos;
        }

        /** CPU nanoseconds of the threads (not the sampling one) from {@code earlier} to this. */
        long cpuNanosSince(Sample earlier) {
            return since(earlier, 0);
        }

        /** Bytes the threads (not the sampling one) allocated from {@code earlier} to this. */
        long allocatedBytesSince(Sample earlier) {
            return since(earlier, 1);
        }

        private long since(Sample earlier, int field) {
            long sum = 0;
            for (Map.Entry<Long, long[]> e : perThread.entrySet()) {
                long[] before = earlier.perThread.get(e.getKey());
                sum += e.getValue()[field] - (before == null ? 0 : before[field]);
            }
            return sum;
        }
    }
}
