package io.brook.compat.connect;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Collection;
import java.util.Map;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;

/** Appends each record's value to the configured file, one line per record. */
public class CollectingSinkTask extends SinkTask {
    private Path file;

    @Override
    public void start(Map<String, String> props) {
        file = Path.of(props.get(CollectingSinkConnector.FILE));
    }

    @Override
    public void put(Collection<SinkRecord> records) {
        StringBuilder lines = new StringBuilder();
        for (SinkRecord r : records) {
            lines.append(r.value()).append('\n');
        }
        try {
            Files.writeString(file, lines, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void stop() {
        // nothing to release
    }

    @Override
    public String version() {
        return "1";
    }
}
