/**
 * The controller's decisions (docs/cluster.md, section 5), as plain code on an injected clock:
 * {@link io.brook.cluster.controller.Controller} turns requests (register, heartbeat, create a
 * topic, allocate producer ids) and the passing of time (fencing) into batches of metadata records
 * appended through a {@link io.brook.cluster.raft.MetadataLog}; {@link
 * io.brook.cluster.controller.PartitionPlacer} places replicas rack-aware. No network handlers
 * call it yet.
 */
package io.brook.cluster.controller;
