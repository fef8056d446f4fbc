package io.brook.bench.runner;

/**
 * A broker process's CPU seconds (user + system, all threads) between {@link #start} and
 * {@link #seconds}, and the runner's own (the clients') over the same interval.
 */
final class CpuMeter {
    private final long pid;
    private final int clockTicks;
    private final long startTicks;
    private final long clientStartTicks;
    private static final long SELF = ProcessHandle.current().pid();

    private CpuMeter(long pid, int clockTicks) {
        this.pid = pid;
        this.clockTicks = clockTicks;
        this.startTicks = ProcFs.cpuTicks(pid);
        this.clientStartTicks = ProcFs.cpuTicks(SELF);
    }

    static CpuMeter start(long pid, int clockTicks) {
        return new CpuMeter(pid, clockTicks);
    }

    double seconds() {
        return (ProcFs.cpuTicks(pid) - startTicks) / (double) clockTicks;
    }

    /** The runner process's CPU seconds since {@link #start}. */
    double clientSeconds() {
        return (ProcFs.cpuTicks(SELF) - clientStartTicks) / (double) clockTicks;
    }
}
