package io.brook.server;

import io.brook.storage.Log;
import io.brook.storage.LogConfig;
import java.io.IOException;
import java.util.List;

/**
 * The partition logs as the server uses them: one {@link Log} per topic partition, created,
 * grown, reconfigured and deleted together with the topic. Implemented over the storage
 * module's log manager; {@link #close()} flushes every log and writes the clean-shutdown marker.
 * Thread-safe.
 */
interface PartitionLogs extends AutoCloseable {

    /** The log of a partition, or null when there is none. */
    Log log(String topic, int partition);

    /** Every partition that has a log. */
    List<TopicPartition> partitions();

    /** Closes and deletes one partition's log, if there is one. */
    void deletePartition(String topic, int partition) throws IOException;

    /** Creates (or opens, after a restart) the logs of partitions {@code from} to {@code to - 1}. */
    void open(String topic, int from, int to, LogConfig config) throws IOException;

    /** Applies a new config to every log of the topic. */
    void reconfigure(String topic, int partitions, LogConfig config);

    /** Closes and deletes the topic's logs. */
    void delete(String topic, int partitions) throws IOException;

    @Override
    void close() throws IOException;
}
