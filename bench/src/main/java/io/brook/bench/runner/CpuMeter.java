package io.brook.bench.runner;

/** A broker process's CPU seconds (user + system, all threads) between {@link #start} and {@link #seconds}. */
final class CpuMeter {
    private final long pid;
    private final int clockTicks;
    private final long startTicks;

    private CpuMeter(long pid, int clockTicks) {
        this.pid = pid;
        this.clockTicks = clockTicks;
        this.startTicks = ProcFs.cpuTicks(pid);
    }

    static CpuMeter start(long pid, int clockTicks) {
        return new CpuMeter(pid, clockTicks);
    }

    double seconds() {
        return (ProcFs.cpuTicks(pid) - startTicks) / (double) clockTicks;
    }
}
