package io.brook.bench.cost;

import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;

/**
 * The CPU time and allocated bytes of one embedded broker's threads: those of a thread group
 * the broker was started in (its threads, and the threads they start, inherit the group). The
 * kernel counts each thread's CPU ({@code CLOCK_THREAD_CPUTIME_ID}: user and system time, in
 * nanoseconds), so other processes on the machine change it far less than they change wall-clock
 * throughput. Neither GC nor JIT threads are Java threads: {@link Sample#processCpuNanos} adds
 * them back (the whole process's CPU less the sampling thread's, other brokers included), a
 * coarser figure that includes what allocation costs.
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

    /** The counters of the threads of {@code group} now, and the process's CPU less the calling thread's. */
    Sample sample(ThreadGroup group) {
        long self = Thread.currentThread().getId();
        Thread[] members = new Thread[group.activeCount() + 16];
        int count = group.enumerate(members, true);
        long[] ids = new long[count];
        for (int i = 0; i < count; i++) {
            ids[i] = members[i].getId();
        }
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
