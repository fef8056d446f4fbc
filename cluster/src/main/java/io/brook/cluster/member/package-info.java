/**
 * The face of cluster mode that the broker uses ({@link io.brook.cluster.member.ClusterMember}):
 * the applied metadata image, the controller's decisions asked for from any node, this broker's
 * registration and heartbeats, and the quorum's status. See docs/cluster.md.
 */
package io.brook.cluster.member;
