package io.brook.cluster.controller;

import io.brook.cluster.metadata.MetadataImage;
import io.brook.cluster.raft.MetadataLog;
import java.util.function.Function;

/**
 * The base of the tests' logs whose appends are held back (a slow or stalled quorum): reads go
 * to an {@link ImageLog}, which each subclass appends to when it lets an append through.
 */
abstract class HeldAppendsLog implements MetadataLog {
    final ImageLog inner = new ImageLog();

    @Override
    public <T> T read(Function<MetadataImage, T> reader) {
        return inner.read(reader);
    }

    @Override
    public long lastAppliedIndex() {
        return inner.lastAppliedIndex();
    }
}
