package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.network.ApiTable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Keeps the README's "Supported APIs" table equal to what the broker advertises: the keys of its
 * handler table, each with the range that goes into the ApiVersions response.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReadmeApiTableTest {

    private static final Pattern ROW = Pattern.compile("\\|\\s*(\\w+)\\s*\\|\\s*(\\d+)\\s*\\|\\s*(\\d+)\\s*[–-]\\s*(\\d+)\\s*\\|");

    @Test
    void readmeShouldListExactlyTheServedApisWithTheirAdvertisedRanges() throws IOException {
        Map<Integer, String> served = new TreeMap<>();
        try (Brook brook = Brook.builder().start()) {
            for (ApiTable.Entry<?> e : brook.apis().entries()) {
                served.put((int) e.key().id(), e.key().displayName() + " " + e.advertisedMin() + "-" + e.advertisedMax());
            }
        }
        assertThat(readmeTable()).containsExactlyEntriesOf(served);
    }

    private static Map<Integer, String> readmeTable() throws IOException {
        List<String> lines = Files.readAllLines(readme(), StandardCharsets.UTF_8);
        int start = lines.indexOf("## Supported APIs");
        assertThat(start).as("README has a '## Supported APIs' section").isNotNegative();
        Map<Integer, String> rows = new TreeMap<>();
        for (int i = start + 1; i < lines.size() && !lines.get(i).startsWith("## "); i++) {
            Matcher m = ROW.matcher(lines.get(i));
            if (m.matches()) {
                rows.put(Integer.parseInt(m.group(2)), m.group(1) + " " + m.group(3) + "-" + m.group(4));
            }
        }
        return rows;
    }

    private static Path readme() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.exists(dir.resolve("README.md")) && Files.exists(dir.resolve("server"))) {
                return dir.resolve("README.md");
            }
        }
        throw new AssertionError("repository README.md not found above " + Path.of("").toAbsolutePath());
    }
}
