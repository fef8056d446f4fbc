package io.brook.compat.connect;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.sink.SinkConnector;

/** A sink connector for the Connect test: one task appends every value it is given to {@code file}, a line each. */
public class CollectingSinkConnector extends SinkConnector {
    static final String FILE = "file";

    private Map<String, String> config;

    @Override
    public void start(Map<String, String> props) {
        config = Map.copyOf(props);
    }

    @Override
    public Class<? extends Task> taskClass() {
        return CollectingSinkTask.class;
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
        return new ConfigDef().define(FILE, ConfigDef.Type.STRING, ConfigDef.Importance.HIGH, "the file to append to");
    }

    @Override
    public String version() {
        return "1";
    }
}
