package io.brook.storage.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LineFilesTest {

    @TempDir
    Path dir;

    @Test
    void passesTheFieldsOfEachRecordLineAndSkipsBlankLinesAndComments() throws IOException {
        Path file = dir.resolve("store");
        Files.writeString(file, "# header\na 1\n\n   \n  b 2 3  \n#c 4\n", StandardCharsets.UTF_8);
        List<List<String>> records = new ArrayList<>();
        LineFiles.read(file, f -> records.add(List.of(f)));
        assertThat(records).containsExactly(List.of("a", "1"), List.of("b", "2", "3"));
    }

    @Test
    void aFileThatDoesNotExistHasNoRecords() throws IOException {
        List<String[]> records = new ArrayList<>();
        LineFiles.read(dir.resolve("missing"), records::add);
        assertThat(records).isEmpty();
    }

    @Test
    void aRefusedLineFailsTheReadWithTheFileTheLineNumberAndTheReason() throws IOException {
        Path file = dir.resolve("store");
        Files.writeString(file, "# header\nok\nbad\n", StandardCharsets.UTF_8);
        assertThatThrownBy(() -> LineFiles.read(file, f -> {
            if (f[0].equals("bad")) {
                throw new IllegalArgumentException("not a record");
            }
        })).isInstanceOf(IOException.class).hasMessage(file + " line 3: not a record")
                .hasCauseInstanceOf(IllegalArgumentException.class);
    }
}
