package io.brook.server.api.fetch;

import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.Executor;

/** Runs tasks only when the test says so. */
final class ManualExecutor implements Executor {
    final Queue<Runnable> tasks = new ArrayDeque<>();

    @Override
    public void execute(Runnable command) {
        tasks.add(command);
    }

    void runAll() {
        Runnable r;
        while ((r = tasks.poll()) != null) {
            r.run();
        }
    }
}
