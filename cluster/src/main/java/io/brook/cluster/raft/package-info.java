/**
 * The metadata quorum on Apache Ratis (docs/cluster.md, sections 2, 3 and 9).
 *
 * <p>{@link io.brook.cluster.raft.MetadataQuorumNode} is one voter: a Ratis server on Ratis'
 * gRPC transport with a {@link io.brook.cluster.raft.MetadataStateMachine}, which applies each
 * committed log entry (a batch of metadata records) to the node's image, takes snapshots into
 * Ratis' snapshot storage and loads the newest one on start. {@link
 * io.brook.cluster.raft.QuorumConfig} reads Kafka's KRaft property names. Nothing here is used
 * by the broker yet.
 */
package io.brook.cluster.raft;
