/**
 * The face of cluster mode that the broker uses ({@link io.brook.cluster.member.ClusterMember}):
 * the applied metadata image, the controller's decisions asked for from any node, this broker's
 * registration and heartbeats, and the quorum's status. {@link
 * io.brook.cluster.member.RatisClusterMember} implements it over the Ratis quorum, with the
 * controller channel (read-only Ratis requests answered by the leader's controller). See
 * docs/cluster.md, section 5a.
 */
package io.brook.cluster.member;
