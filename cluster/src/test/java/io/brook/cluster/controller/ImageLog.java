package io.brook.cluster.controller;

import io.brook.cluster.metadata.MetadataImage;
import io.brook.cluster.metadata.MetadataRecord;
import io.brook.cluster.raft.AppendResult;
import io.brook.cluster.raft.MetadataLog;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/** A metadata log without Raft: each batch is applied at once to one image, as a one-voter quorum would. */
final class ImageLog implements MetadataLog {
    final MetadataImage image = new MetadataImage();
    final List<List<? extends MetadataRecord>> batches = new ArrayList<>();
    private long index = -1;

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
        batches.add(records);
        List<Boolean> applied = image.applyBatch(records);
        return CompletableFuture.completedFuture(new AppendResult(++index, applied));
    }
}
