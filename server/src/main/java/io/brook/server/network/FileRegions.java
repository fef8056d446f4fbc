package io.brook.server.network;

import io.brook.storage.FileRecords;
import io.brook.wire.protocol.Records;
import io.netty.channel.DefaultFileRegion;
import java.nio.channels.FileChannel;

/**
 * Turns file-backed {@link Records} into Netty file regions.
 *
 * <p>The region must be a {@link DefaultFileRegion}: the epoll transport sends only that class
 * with {@code sendfile(2)} (other regions go through a user-space copy). Its release would close
 * the file, which belongs to the log segment, so {@link SharedFileRegion} leaves it open.
 */
final class FileRegions {

    private FileRegions() {
    }

    /**
     * Whether {@code file}'s channel can be sent with {@code sendfile(2)}: only the JDK's own file
     * channel. The epoll transport takes the descriptor out of a {@link DefaultFileRegion}'s
     * channel natively, which for any other class (the fault hooks' channel of a test broker)
     * reads a field that is not there and crashes the JVM; such files are copied instead.
     */
    static boolean sendable(FileRecords file) {
        return file.channel().getClass().getName().startsWith("sun.nio.ch.");
    }

    /** A region for {@code records}, or null when they are not file-backed. */
    static Object regionOf(Records records) {
        if (records instanceof FileRecords file) {
            return new SharedFileRegion(file.channel(), file.position(), file.sizeInBytes());
        }
        return null;
    }

    /** A region over a file someone else owns: released without closing the file. */
    static final class SharedFileRegion extends DefaultFileRegion {
        private final FileChannel file;

        SharedFileRegion(FileChannel file, long position, long count) {
            super(file, position, count);
            this.file = file;
        }

        /** The file (for copying when it cannot be sent with sendfile: TLS). */
        FileChannel file() {
            return file;
        }

        @Override
        protected void deallocate() {
            // the file channel belongs to the segment; it stays open
        }
    }
}
