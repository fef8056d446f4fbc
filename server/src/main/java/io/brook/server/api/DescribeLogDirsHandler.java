package io.brook.server.api;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.server.topic.Topics;
import io.brook.storage.Log;
import io.brook.wire.message.DescribeLogDirsRequest;
import io.brook.wire.message.DescribeLogDirsRequest.DescribableLogDirTopic;
import io.brook.wire.message.DescribeLogDirsResponse;
import io.brook.wire.message.DescribeLogDirsResponse.DescribeLogDirsPartition;
import io.brook.wire.message.DescribeLogDirsResponse.DescribeLogDirsResult;
import io.brook.wire.message.DescribeLogDirsResponse.DescribeLogDirsTopic;
import io.brook.wire.protocol.Errors;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * DescribeLogDirs (key 35), as {@code kafka-log-dirs.sh --describe}, kafka-ui and AKHQ ask it:
 * the one data directory with every partition log in it (internal topics included), or those of
 * the requested topics that exist: each with its size in bytes. {@code OffsetLag} is Kafka's:
 * how far the log end trails the high watermark, which only a future log (a move between
 * directories, not done by a single-directory broker) can; 0 here. From v4, the volume's total
 * and usable bytes (KIP-827); from v3 the top-level error code.
 */
final class DescribeLogDirsHandler implements ApiHandler<DescribeLogDirsRequest> {

    private final BrokerContext broker;

    DescribeLogDirsHandler(BrokerContext broker) {
        this.broker = broker;
    }

    @Override
    public void handle(RequestContext ctx, DescribeLogDirsRequest request) {
        Topics topics = broker.topics();
        Set<String> wanted = null;
        if (request.topics() != null) {
            wanted = new HashSet<>();
            for (DescribableLogDirTopic t : request.topics()) {
                for (int p : t.partitions()) {
                    wanted.add(t.topic() + "-" + p);
                }
            }
        }
        Map<String, List<DescribeLogDirsPartition>> byTopic = new TreeMap<>();
        for (Log log : topics.allLogs()) {
            if (wanted != null && !wanted.contains(log.topic() + "-" + log.partition())) {
                continue;
            }
            byTopic.computeIfAbsent(log.topic(), t -> new ArrayList<>()).add(new DescribeLogDirsPartition()
                    .partitionIndex(log.partition()).partitionSize(log.sizeInBytes()).offsetLag(0).isFutureKey(false));
        }
        List<DescribeLogDirsTopic> out = new ArrayList<>();
        byTopic.forEach((name, partitions) -> {
            partitions.sort((a, b) -> Integer.compare(a.partitionIndex(), b.partitionIndex()));
            out.add(new DescribeLogDirsTopic().name(name).partitions(partitions));
        });
        Path dir = broker.config().dataDir().toAbsolutePath();
        DescribeLogDirsResult result = new DescribeLogDirsResult().errorCode(Errors.NONE.code())
                .logDir(dir.toString()).topics(out);
        try {
            FileStore store = Files.getFileStore(dir);
            result.totalBytes(store.getTotalSpace()).usableBytes(store.getUsableSpace());
        } catch (IOException e) {
            // the sizes stay unknown (-1), as Kafka leaves them when it cannot read them
        }
        ctx.respond(new DescribeLogDirsResponse().errorCode(Errors.NONE.code()).results(List.of(result)));
    }
}
