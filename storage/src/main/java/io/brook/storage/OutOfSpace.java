package io.brook.storage;

import java.io.IOException;

/**
 * Tells a full file system (ENOSPC, or EDQUOT for a quota) from other I/O errors. Unlike an EIO,
 * it says nothing about the disk's health: what was written before it is intact, and the same
 * write succeeds once space is freed. Java reports both only through the message the operating
 * system gives ({@code strerror}), so that is what is matched, through the chain of causes.
 */
final class OutOfSpace {
    private static final String ENOSPC = "No space left on device";
    private static final String EDQUOT = "Disk quota exceeded";

    private OutOfSpace() {
    }

    static boolean is(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            String m = c.getMessage();
            if (c instanceof IOException && m != null && (m.contains(ENOSPC) || m.contains(EDQUOT))) {
                return true;
            }
        }
        return false;
    }
}
