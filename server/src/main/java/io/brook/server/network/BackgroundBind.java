package io.brook.server.network;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;

/**
 * Creates the {@link NetworkServer} and binds its listeners on a thread of its own while the
 * broker's starting thread opens the logs and the coordinators. The two are independent, and in a
 * new JVM each is mostly class loading and initialisation (Netty's event loops and native
 * transport on one side, storage and coordinators on the other), which two cores do side by side.
 *
 * <p>{@link #join()} hands the bound server over, or throws what creating or binding it threw;
 * {@link #abandon()} is for a start that failed elsewhere: it waits for the thread and closes the
 * server if one was made. The thread is a daemon and ends when its one task does.
 */
public final class BackgroundBind {
    private final FutureTask<NetworkServer> task;

    private BackgroundBind(Callable<NetworkServer> create) {
        this.task = new FutureTask<>(() -> {
            NetworkServer server = create.call();
            try {
                server.bind();
                return server;
            } catch (InterruptedException | RuntimeException | Error e) {
                server.close(0, () -> { });
                throw e;
            }
        });
    }

    /** Starts creating the server with {@code create} and binding it, on a new thread. */
    public static BackgroundBind start(Callable<NetworkServer> create) {
        BackgroundBind bind = new BackgroundBind(create);
        Thread thread = new Thread(bind.task, "brook-bind");
        thread.setDaemon(true);
        thread.start();
        return bind;
    }

    /** Waits for the server, bound. */
    public NetworkServer join() throws InterruptedException {
        try {
            return task.get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof InterruptedException interrupted) {
                throw interrupted;
            }
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException("Cannot start the listeners: " + cause, cause);
        }
    }

    /** Waits for the thread and closes the server it made, if any; for a start that failed elsewhere. */
    public void abandon() {
        boolean interrupted = false;
        while (true) {
            try {
                task.get().close(0, () -> { });
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            } catch (ExecutionException e) {
                break; // it failed itself and closed what it had made
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
