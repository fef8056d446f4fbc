package io.brook.storage;

import java.nio.file.Path;

/**
 * Where a segment stops being sound: the file, the byte position of the first bad batch, the
 * offset that batch would have started at, and why. {@code zeroTail}: everything from there to
 * the end of the file is zeros, as preallocation leaves it (see {@link Preallocator}).
 */
record Corruption(Path file, int position, long offset, String reason, boolean zeroTail) {
    @Override
    public String toString() {
        return file + " at position " + position + " (offset " + offset + "): " + reason;
    }
}
