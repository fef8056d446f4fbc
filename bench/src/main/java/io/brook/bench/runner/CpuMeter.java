package io.brook.bench.runner;

/**
 * A broker process's CPU seconds (user + system, all threads) between {@link #start} and
 * {@link #seconds}, the runner's own (the clients') over the same interval, and the whole
 * machine's busy time apart from the runner ({@link #machineSecondsWithoutClient}).
 */
final class CpuMeter {
    private final long pid;
    private final int clockTicks;
    private final long startTicks;
    private final long clientStartTicks;
    private final long machineStartTicks;
    private static final long SELF = ProcessHandle.current().pid();

    private CpuMeter(long pid, int clockTicks) {
        this.pid = pid;
        this.clockTicks = clockTicks;
        this.startTicks = ProcFs.cpuTicks(pid);
        this.clientStartTicks = ProcFs.cpuTicks(SELF);
        this.machineStartTicks = ProcFs.machineBusyTicks();
    }

    static CpuMeter start(long pid, int clockTicks) {
        return new CpuMeter(pid, clockTicks);
    }

    double seconds() {
        return (ProcFs.cpuTicks(pid) - startTicks) / (double) clockTicks;
    }

    /**
     * The machine's busy CPU seconds since {@link #start}, less the runner's own: the broker
     * plus whatever the kernel did for it outside its process, above all the page writeback of
     * data the broker left dirty, which runs in kernel threads that no process is charged for
     * (and in {@code sync} when the runner calls it). Other load on the machine counts too.
     */
    double machineSecondsWithoutClient() {
        long machine = ProcFs.machineBusyTicks() - machineStartTicks;
        long client = ProcFs.cpuTicks(SELF) - clientStartTicks;
        return (machine - client) / (double) clockTicks;
    }

    /** The runner process's CPU seconds since {@link #start}. */
    double clientSeconds() {
        return (ProcFs.cpuTicks(SELF) - clientStartTicks) / (double) clockTicks;
    }
}
