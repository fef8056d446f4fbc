package io.brook.storage.file;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * Reads the small line files the server's stores keep in the metadata directory (SCRAM
 * credentials, ACLs, client quotas; each replaced with {@link DurableFiles#writeAtomically}): one
 * record a line, its fields separated by single spaces; blank lines and lines starting with
 * {@code #} are skipped. A line the store's parser refuses fails the whole read with the file,
 * the line's number and the parser's reason: a store never starts from part of its records.
 */
public final class LineFiles {

    private LineFiles() {
    }

    /**
     * Passes the fields of each record line of {@code file}, in order, to {@code record}, which
     * throws an {@link IllegalArgumentException} (its message the reason) for a line that is not
     * a record. Nothing when the file does not exist.
     *
     * @throws IOException the file could not be read, or a line is not a record
     */
    public static void read(Path file, Consumer<String[]> record) throws IOException {
        if (!Files.exists(file)) {
            return;
        }
        int n = 0;
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            n++;
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            try {
                record.accept(line.trim().split(" "));
            } catch (IllegalArgumentException e) {
                throw new IOException(file + " line " + n + ": " + e.getMessage(), e);
            }
        }
    }
}
