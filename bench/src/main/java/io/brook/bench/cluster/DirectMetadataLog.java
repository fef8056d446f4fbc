package io.brook.bench.cluster;

import io.brook.cluster.metadata.MetadataImage;
import io.brook.cluster.metadata.MetadataRecord;
import io.brook.cluster.raft.AppendResult;
import io.brook.cluster.raft.MetadataLog;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * A metadata log without Raft, for the controller's own cost: each batch is applied at once to
 * one image (what every node's state machine does with a committed entry), nothing is encoded,
 * replicated or written.
 */
final class DirectMetadataLog implements MetadataLog {
    private final MetadataImage image;
    private long index;

    DirectMetadataLog(MetadataImage image) {
        this.image = image;
    }

    @Override
    public synchronized <T> T read(Function<MetadataImage, T> reader) {
        return reader.apply(image);
    }

    @Override
    public synchronized long lastAppliedIndex() {
        return index;
    }

    @Override
    public synchronized CompletableFuture<AppendResult> append(List<? extends MetadataRecord> records) {
        List<Boolean> applied = image.applyBatch(records);
        return CompletableFuture.completedFuture(new AppendResult(++index, applied));
    }
}
