package io.brook.server.api;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.server.topic.Topic;
import io.brook.server.topic.Topics;
import io.brook.storage.Log;
import io.brook.wire.message.AlterReplicaLogDirsRequest;
import io.brook.wire.message.AlterReplicaLogDirsRequest.AlterReplicaLogDir;
import io.brook.wire.message.AlterReplicaLogDirsRequest.AlterReplicaLogDirTopic;
import io.brook.wire.message.AlterReplicaLogDirsResponse;
import io.brook.wire.message.AlterReplicaLogDirsResponse.AlterReplicaLogDirPartitionResult;
import io.brook.wire.message.AlterReplicaLogDirsResponse.AlterReplicaLogDirTopicResult;
import io.brook.wire.protocol.Errors;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * AlterReplicaLogDirs (key 34), which {@code kafka-reassign-partitions.sh} sends for a plan with
 * {@code log_dirs} and the Admin client's {@code alterReplicaLogDirs}: move this broker's replica
 * of a partition to another of its data directories. A Brook broker has one data directory, so
 * the only move it can be asked for is to where the replica already is, which Kafka answers NONE
 * (a move to the current directory is a no-op), and so does Brook.
 *
 * <p>Per partition, in Kafka's order: LOG_DIR_NOT_FOUND for a path that is not the data directory
 * (compared as absolute, normalised paths, where Kafka compares the strings; the path
 * DescribeLogDirs gives matches either way); UNKNOWN_TOPIC_OR_PARTITION for a partition that
 * does not exist; REPLICA_NOT_AVAILABLE for one of an existing topic that this node does not host
 * (cluster mode); KAFKA_STORAGE_ERROR for a log an I/O failure took offline. A partition named
 * under two paths gets the answer for the last, as Kafka keys the request by partition. Kafka
 * refuses a topic whose name, with the suffix of a directory being moved to, would be over 255
 * bytes (INVALID_TOPIC_EXCEPTION); Brook moves no directory and answers those like any other.
 * The ALTER permission on the cluster is checked before this handler runs.
 */
final class AlterReplicaLogDirsHandler implements ApiHandler<AlterReplicaLogDirsRequest> {

    private final BrokerContext broker;

    AlterReplicaLogDirsHandler(BrokerContext broker) {
        this.broker = broker;
    }

    @Override
    public void handle(RequestContext ctx, AlterReplicaLogDirsRequest request) {
        Path dataDir = broker.config().dataDir().toAbsolutePath().normalize();
        Map<String, Map<Integer, Errors>> byTopic = new LinkedHashMap<>();
        for (AlterReplicaLogDir dir : request.dirs()) {
            boolean ours = isDataDir(dir.path(), dataDir);
            for (AlterReplicaLogDirTopic t : dir.topics()) {
                Map<Integer, Errors> partitions = byTopic.computeIfAbsent(t.name(), n -> new LinkedHashMap<>());
                for (int p : t.partitions()) {
                    // the later path wins, in the place of the partition's first mention
                    partitions.put(p, ours ? answer(t.name(), p) : Errors.LOG_DIR_NOT_FOUND);
                }
            }
        }
        List<AlterReplicaLogDirTopicResult> results = new ArrayList<>(byTopic.size());
        byTopic.forEach((name, partitions) -> {
            List<AlterReplicaLogDirPartitionResult> out = new ArrayList<>(partitions.size());
            partitions.forEach((p, e) -> out.add(new AlterReplicaLogDirPartitionResult().partitionIndex(p)
                    .errorCode(e.code())));
            results.add(new AlterReplicaLogDirTopicResult().topicName(name).partitions(out));
        });
        ctx.respond(new AlterReplicaLogDirsResponse().results(results));
    }

    private static boolean isDataDir(String path, Path dataDir) {
        if (path == null || path.isEmpty()) {
            return false;
        }
        try {
            Path p = Path.of(path);
            return p.isAbsolute() && p.normalize().equals(dataDir);
        } catch (InvalidPathException e) {
            return false;
        }
    }

    /** The answer for a move of the partition to the directory it is in. */
    private Errors answer(String topicName, int partition) {
        Topics topics = broker.topics();
        Topic topic = topicName == null ? null : topics.get(topicName);
        if (topic == null || partition < 0 || partition >= topic.partitions()) {
            return Errors.UNKNOWN_TOPIC_OR_PARTITION;
        }
        Log log = topics.log(topicName, partition);
        if (log == null) {
            return Errors.REPLICA_NOT_AVAILABLE;
        }
        return log.isOffline() ? Errors.KAFKA_STORAGE_ERROR : Errors.NONE;
    }
}
