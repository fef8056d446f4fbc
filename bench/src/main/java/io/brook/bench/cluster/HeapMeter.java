package io.brook.bench.cluster;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;

/** The heap in use after full collections, to measure what a structure retains. */
final class HeapMeter {
    private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();

    private HeapMeter() {
    }

    /** Heap bytes in use after collecting until the figure stops falling (at most five collections). */
    static long usedAfterGc() {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            long now = MEMORY.getHeapMemoryUsage().getUsed();
            if (now >= used) {
                return now;
            }
            used = now;
        }
        return used;
    }
}
