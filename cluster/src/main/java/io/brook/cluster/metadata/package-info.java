/**
 * The cluster's metadata as records and as an image (docs/cluster.md, sections 3 and 4).
 *
 * <p>{@link io.brook.cluster.metadata.MetadataRecord} is what the controller decides and the
 * metadata log stores; {@link io.brook.cluster.metadata.MetadataCodec} is its binary format, which
 * checks every length before use; {@link io.brook.cluster.metadata.MetadataImage} is the state the
 * records build, by a deterministic {@code apply} that rejects a record that does not fit without
 * changing anything. No threads, no I/O: the state machine in {@code io.brook.cluster.raft} owns
 * the image and serialises access to it.
 */
package io.brook.cluster.metadata;
