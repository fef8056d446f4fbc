package io.brook.compat.connect;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.source.ExactlyOnceSupport;
import org.apache.kafka.connect.source.SourceConnector;

/**
 * A source connector for the Connect test: one task writes the values {@code record-0} to
 * {@code record-<records - 1>} to {@code topic}, keeping its place in Connect's offset topic.
 */
public class CountingSourceConnector extends SourceConnector {
    static final String TOPIC = "topic";
    static final String RECORDS = "records";

    private Map<String, String> config;

    @Override
    public void start(Map<String, String> props) {
        config = Map.copyOf(props);
    }

    @Override
    public Class<? extends Task> taskClass() {
        return CountingSourceTask.class;
    }

    @Override
    public List<Map<String, String>> taskConfigs(int maxTasks) {
        return List.of(config);
    }

    @Override
    public void stop() {
        // nothing to release
    }

    @Override
    public ConfigDef config() {
        return new ConfigDef()
                .define(TOPIC, ConfigDef.Type.STRING, ConfigDef.Importance.HIGH, "the topic to write to")
                .define(RECORDS, ConfigDef.Type.INT, ConfigDef.Importance.HIGH, "how many records to write");
    }

    /** Its records and offsets may go in one transaction (KIP-618): asked when a worker runs exactly-once sources. */
    @Override
    public ExactlyOnceSupport exactlyOnceSupport(Map<String, String> props) {
        return ExactlyOnceSupport.SUPPORTED;
    }

    @Override
    public String version() {
        return "1";
    }
}
