package io.brook.cluster.raft;

import io.brook.cluster.metadata.MetadataImage;
import io.brook.cluster.metadata.MetadataRecord;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * What the controller needs of the metadata quorum: this node's image, and appending a batch of
 * records that completes once the batch is committed and applied to that image. {@link
 * MetadataQuorumNode} is the real one; tests apply to an image directly.
 */
public interface MetadataLog {

    /** Reads this node's image under its lock; {@code reader} must not keep references to it. */
    <T> T read(Function<MetadataImage, T> reader);

    /** The index of the last entry applied to this node's image, -1 before any. */
    long lastAppliedIndex();

    /** Appends one batch; completes when it is committed and applied here, with what was applied. */
    CompletableFuture<AppendResult> append(List<? extends MetadataRecord> records);
}
