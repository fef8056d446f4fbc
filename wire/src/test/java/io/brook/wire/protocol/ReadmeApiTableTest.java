package io.brook.wire.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Keeps the README's "Supported APIs" table equal to what {@link ApiKey} advertises. */
class ReadmeApiTableTest {

    private static final Pattern ROW = Pattern.compile("\\|\\s*(\\w+)\\s*\\|\\s*(\\d+)\\s*\\|\\s*(\\d+)\\s*[–-]\\s*(\\d+)\\s*\\|");

    static Path readme() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null) {
            Path candidate = dir.resolve("README.md");
            if (Files.exists(candidate) && Files.exists(dir.resolve("wire"))) {
                return candidate;
            }
            dir = dir.getParent();
        }
        throw new AssertionError("repository README.md not found above " + Path.of("").toAbsolutePath());
    }

    static Map<Integer, String> readmeTable() throws IOException {
        List<String> lines = Files.readAllLines(readme(), StandardCharsets.UTF_8);
        int start = lines.indexOf("## Supported APIs");
        assertThat(start).as("README has a '## Supported APIs' section").isNotNegative();
        Map<Integer, String> rows = new TreeMap<>();
        for (int i = start + 1; i < lines.size() && !lines.get(i).startsWith("## "); i++) {
            Matcher m = ROW.matcher(lines.get(i));
            if (m.matches()) {
                String previous = rows.put(Integer.parseInt(m.group(2)), m.group(1) + " " + m.group(3) + "-" + m.group(4));
                assertThat(previous).as("duplicate row for key " + m.group(2)).isNull();
            }
        }
        return rows;
    }

    @Test
    void readmeTableShouldEqualAdvertisedRanges() throws IOException {
        Map<Integer, String> expected = new TreeMap<>();
        for (ApiKey key : ApiKey.values()) {
            if (key.advertised()) {
                expected.put((int) key.id(), key.displayName() + " " + key.advertisedMin() + "-" + key.advertisedMax());
            }
        }
        assertThat(readmeTable()).containsExactlyEntriesOf(expected);
    }
}
