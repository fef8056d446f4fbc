package io.brook.storage;

import java.io.IOException;

/**
 * Tells a process or system out of file descriptors (EMFILE, ENFILE) from other I/O errors. Like
 * a full disk it says nothing about the disk's health: nothing written is harmed, and the same open
 * succeeds once descriptors are free again. Java reports both only through the operating system's
 * message ({@code strerror}), so that is what is matched, through the chain of causes.
 */
final class OutOfFiles {
    /** EMFILE's message; ENFILE's is "Too many open files in system", which contains it. */
    private static final String EMFILE = "Too many open files";

    private OutOfFiles() {
    }

    static boolean is(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            String m = c.getMessage();
            if (c instanceof IOException && m != null && m.contains(EMFILE)) {
                return true;
            }
        }
        return false;
    }
}
