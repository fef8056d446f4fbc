package io.brook.compat.connect;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;

/**
 * Writes {@code record-<i>} for i from the offset Connect stored for it (0 at first) up to the
 * configured count, ten per poll; then polls return nothing until the task is stopped.
 */
public class CountingSourceTask extends SourceTask {
    private static final Map<String, String> PARTITION = Map.of("source", "counting");

    private final CountDownLatch stopped = new CountDownLatch(1);
    private String topic;
    private int records;
    private int next;

    @Override
    public void start(Map<String, String> props) {
        topic = props.get(CountingSourceConnector.TOPIC);
        records = Integer.parseInt(props.get(CountingSourceConnector.RECORDS));
        Map<String, Object> stored = context.offsetStorageReader().offset(PARTITION);
        next = stored == null ? 0 : ((Number) stored.get("next")).intValue();
    }

    @Override
    public List<SourceRecord> poll() throws InterruptedException {
        if (next >= records) {
            // all written: wait for the stop (or a while) instead of returning at once again
            stopped.await(200, TimeUnit.MILLISECONDS);
            return null;
        }
        List<SourceRecord> batch = new ArrayList<>();
        for (int end = Math.min(records, next + 10); next < end; next++) {
            batch.add(new SourceRecord(PARTITION, Map.of("next", next + 1), topic, null, null, null,
                    Schema.STRING_SCHEMA, "record-" + next));
        }
        return batch;
    }

    @Override
    public void stop() {
        stopped.countDown();
    }

    @Override
    public String version() {
        return "1";
    }
}
