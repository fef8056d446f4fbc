package io.brook.reliability;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What a broker's log says went wrong: its ERROR lines counted by logger, the check that the
 * JVM never ran out of memory (heap or direct buffers), which a broker survives as a process but
 * not as a service (every request that needs a new buffer fails), and the check that Netty's leak
 * detector (on by default, sampling a small share of buffers) reported no buffer that was never
 * released.
 */
final class BrokerLog {
    static final String NO_OOM = "broker never ran out of memory (no OutOfMemoryError in its log)";
    static final String NO_BUFFER_LEAK = "no buffer leak reported (Netty's leak detector)";
    private static final Pattern ERROR = Pattern.compile(" ERROR (\\S+)");

    private BrokerLog() {
    }

    static void check(BrokerProcess broker, ScenarioResult result) throws IOException {
        Map<String, Integer> errors = new TreeMap<>();
        long oom = 0;
        String firstOom = null;
        long leaks = 0;
        String firstLeak = null;
        // the log may hold bytes clients sent (topic names): read it as Latin-1, which maps every byte
        try (Stream<String> lines = Files.lines(broker.log(), StandardCharsets.ISO_8859_1)) {
            for (String line : (Iterable<String>) lines::iterator) {
                Matcher m = ERROR.matcher(line);
                if (m.find()) {
                    errors.merge(m.group(1), 1, Integer::sum);
                }
                if (line.contains("LEAK:")) {
                    leaks++;
                    if (firstLeak == null) {
                        firstLeak = line.length() > 300 ? line.substring(0, 300) + "..." : line;
                    }
                }
                if (line.contains("OutOfMemoryError")) {
                    oom++;
                    if (firstOom == null) {
                        firstOom = line.length() > 300 ? line.substring(0, 300) + "..." : line;
                    }
                }
            }
        }
        result.figure("broker log: ERROR lines by logger", errors.isEmpty() ? "none" : errors.toString());
        result.check(NO_OOM, oom == 0, oom == 0 ? "none" : oom + " lines mention OutOfMemoryError; the first: " + firstOom);
        result.check(NO_BUFFER_LEAK, leaks == 0, leaks == 0 ? "none" : leaks + " LEAK reports; the first: " + firstLeak);
    }
}
