package io.brook.storage;

import java.nio.file.Path;

/**
 * Where a segment stops being sound: the file, the byte position of the first bad batch, the
 * offset that batch would have started at, and why.
 */
record Corruption(Path file, int position, long offset, String reason) {
    @Override
    public String toString() {
        return file + " at position " + position + " (offset " + offset + "): " + reason;
    }
}
