package io.brook.server.network;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Says in words why a listener cannot accept a connection, and how often. The last handler of a
 * listening channel's pipeline, behind Netty's acceptor, which stops accepting for a second after
 * a failed accept and then tries again; the failure then reaches this handler, not the end of
 * the pipeline, where Netty would log a generic warning with a stack trace every second for as
 * long as the failure lasts.
 *
 * <p>The usual failure is a process out of file descriptors (EMFILE): a crowd of connections, or
 * logs and connections together, took every descriptor the process may open. The connections not
 * yet accepted wait in the listen backlog, and are accepted once descriptors are free again.
 * The first failure is logged at once; later ones at most once per {@link #QUIET_MS}, with the
 * number of failures in between.
 *
 * <p>Threading: the listener's event loop only.
 */
public final class AcceptFailures extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(AcceptFailures.class);
    /** The least time between two warnings of one listener. */
    static final long QUIET_MS = 60_000;
    private static final String EMFILE = "Too many open files";
    private static final String ENFILE = "Too many open files in system";

    private final String listener;
    private final LongSupplier fileLimit;
    private final LongSupplier nowMs;
    private boolean warned;
    private long warnedAtMs;
    private long unreported;

    /**
     * For {@code listener} (its name, as in the log), where the process may open
     * {@code fileLimit} files (-1 when unknown), on {@code nowMs}'s time.
     */
    public AcceptFailures(String listener, LongSupplier fileLimit, LongSupplier nowMs) {
        this.listener = listener;
        this.fileLimit = fileLimit;
        this.nowMs = nowMs;
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        String line = failed(cause);
        if (line != null) {
            LOG.warn(line);
        }
    }

    /** Counts a failed accept; returns the warning to log, or null while the last one is recent. */
    String failed(Throwable cause) {
        long now = nowMs.getAsLong();
        if (warned && now - warnedAtMs < QUIET_MS) {
            unreported++;
            return null;
        }
        String line = describe(cause);
        if (unreported > 0) {
            line += " (" + unreported + " more failed accepts since the last warning)";
        }
        warned = true;
        warnedAtMs = now;
        unreported = 0;
        return line;
    }

    private String describe(Throwable cause) {
        String message = String.valueOf(cause.getMessage());
        String start = "Listener " + listener + " cannot accept connections: ";
        String waiting = "; new clients wait in the listen backlog, and are accepted once descriptors are free"
                + " (tried again every second)";
        if (message.contains(ENFILE)) {
            return start + "the machine is out of file descriptors (" + ENFILE + ")" + waiting
                    + ". Raise the system's limit (fs.file-max) or stop what holds them.";
        }
        if (message.contains(EMFILE)) {
            long limit = fileLimit.getAsLong();
            String of = limit > 0 ? "all the " + limit + " file descriptors" : "all the file descriptors";
            return start + "this process has " + of + " it may open (" + EMFILE + ")" + waiting
                    + ". Raise the limit (ulimit -n, systemd's LimitNOFILE) or bound the connections"
                    + " (max.connections, max.connections.per.ip).";
        }
        return start + cause + " (tried again every second)";
    }
}
