package io.brook.reliability;

import io.brook.testkit.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The fuzzing connections of a scenario: {@code connections} {@link FuzzClient} threads that
 * share a budget of frames and a deadline, each following {@code plan}. {@link #run} waits until
 * they are done (or the broker died) and adds what every fuzzing scenario reports: the volume, the
 * connections, and the checks that the broker is alive and kept reading every connection.
 */
final class Fuzzers {
    static final String ALIVE = "broker alive (0 crashes)";
    static final String READING = "broker kept reading every connection";
    static final String VOLUME = "frames sent";
    static final String MEMORY = "broker memory stayed bounded";

    /** How much to fuzz, and the longest pause the well-behaved clients beside it may see. */
    record Size(int connections, long frames, Duration maxDuration, Duration maxGoodClientPause) {
        String describe() {
            return connections + " connections, " + frames + " frames or " + maxDuration.toSeconds()
                    + " s, whichever comes first";
        }
    }

    private Fuzzers() {
    }

    /** Makes one fuzzing thread's work: its seed, the shared budget and deadline, the shared counters. */
    interface Clients {
        Runnable client(long seed, AtomicLong budget, long deadlineNanos, FuzzClient.Counters counters);
    }

    /**
     * Fuzzes the broker's {@code port} and reports; returns whether the broker is still alive.
     * {@code status} describes the other clients for the progress line.
     */
    static boolean run(Env env, ScenarioResult result, BrokerProcess broker, int port, FuzzPlan plan, Size size,
            Supplier<String> status) {
        return run(env, result, broker, size, status,
                (seed, budget, deadline, counters) -> new FuzzClient(port, plan, seed, budget, deadline, counters));
    }

    /** As {@link #run(Env, ScenarioResult, BrokerProcess, int, FuzzPlan, Size, Supplier)}, with fuzzing threads of {@code clients}' making. */
    static boolean run(Env env, ScenarioResult result, BrokerProcess broker, Size size, Supplier<String> status,
            Clients clients) {
        FuzzClient.Counters counters = new FuzzClient.Counters();
        AtomicLong budget = new AtomicLong(size.frames());
        long start = System.nanoTime();
        long deadline = start + size.maxDuration().toNanos();
        List<Thread> fuzzers = new ArrayList<>();
        try {
            for (int i = 0; i < size.connections(); i++) {
                Thread t = new Thread(clients.client(env.seed() + i, budget, deadline, counters), "fuzz-" + i);
                t.setDaemon(true);
                fuzzers.add(t);
                t.start();
            }
            Await.until("the fuzzing threads to finish", size.maxDuration().plusSeconds(60), () -> {
                env.progress().update(counters.frames.get() + " frames, " + counters.connections.get() + " connections, "
                        + status.get());
                return fuzzers.stream().noneMatch(Thread::isAlive) || !broker.alive();
            });
        } finally {
            fuzzers.forEach(Thread::interrupt);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        boolean alive = broker.alive();
        result.figure("frames sent", counters.frames.get(), "");
        result.figure("frames per second", counters.frames.get() / seconds, "");
        result.figure("fuzzing time", seconds, "s");
        result.figure("bytes sent", counters.bytesSent.get(), "B");
        result.figure("bytes received", counters.bytesReceived.get(), "B");
        result.figure("connections opened", counters.connections.get(), "");
        result.figure("connections closed by the broker", counters.closedByBroker.get(), "");
        result.figure("connections refused", counters.connectFailures.get(), "");
        result.figure("frames left unanswered for " + FuzzClient.ANSWER_WAIT_MS + " ms", counters.unanswered.get(), "");
        result.check(VOLUME, counters.frames.get() >= size.frames(), counters.frames.get() + " of " + size.frames()
                + " in " + Math.round(seconds) + " s");
        result.check(ALIVE, alive, alive ? "serving after " + Math.round(seconds) + " s of fuzzing"
                : "EXITED with status " + broker.exitValue() + "; last lines:\n" + broker.logTail(20));
        result.check(READING, counters.stalls.get() == 0, counters.stalls.get() + " writes could not complete within "
                + FuzzClient.STALL_SECONDS + " s");
        return alive;
    }

    /**
     * The checks after the fuzzing that every fuzzing scenario makes: a thread dump, the
     * well-behaved clients' errors, pauses and data, the broker's memory and its log.
     */
    static void finish(Env env, ScenarioResult result, BrokerProcess broker, GoodClients good, Size size, RssSampler rss,
            String scenario) throws Exception {
        ThreadDump dump = ThreadDump.take(broker.pid(), env.out().resolve(scenario + "-jstack.txt"));
        result.figure("broker threads at the end (jstack)", dump.threads(), "");
        result.figure("of them BLOCKED", dump.blocked(), "");
        good.finish(result, size.maxGoodClientPause());
        rss.report(result, MEMORY, 2 * env.launcher().heapMaxBytes() + (512L << 20), true);
        BrokerLog.check(broker, result);
    }
}
