package io.brook.coordinator.group;

import java.util.EnumSet;
import java.util.Set;

/**
 * States of a classic-protocol group (Kafka's classic group protocol). {@link #label()} is the exact
 * string DescribeGroups and ListGroups put on the wire. The transitions, made by {@link Rebalance}
 * (to Dead by {@link GroupAdmin} and {@link GroupOffsets}) and checked by
 * {@link ClassicGroup#transitionTo}:
 * <pre>
 *                 member joins                      all members rejoined, or rebalance timeout
 *   +-------+  (after MEMBER_ID_REQUIRED)  +--------------------+  (initial delay first when from Empty)  +---------------------+
 *   | Empty | ---------------------------> | PreparingRebalance | --------------------------------------> | CompletingRebalance |
 *   +-------+                              +--------------------+                                         +---------------------+
 *       ^   join phase ends with no members   |     ^      ^                                                |            |
 *       +-------------------------------------+     |      | member joins with new metadata, leaves,        |            | leader's
 *                                                   |      | expires, or misses SyncGroup;                   |            | SyncGroup
 *                                                   |      +-------------------------------------------------+            | durable
 *                                                   |   leader rejoins, follower rejoins with new metadata,               v
 *                                                   |   new member, leave, session expiry, pending-sync expiry   +--------+
 *                                                   +--------------------------------------------------------------| Stable |
 *                                                                                                                  +--------+
 *   Dead: an Empty group being deleted (DeleteGroups, or expiry of its last offsets) is Dead while
 *   the tombstones are written, then dropped from memory; if DeleteGroups cannot write them the
 *   group is Empty again.
 * </pre>
 */
enum GroupState {
    EMPTY("Empty"),
    PREPARING_REBALANCE("PreparingRebalance"),
    COMPLETING_REBALANCE("CompletingRebalance"),
    STABLE("Stable"),
    DEAD("Dead");

    private final String label;
    private Set<GroupState> validPrevious;

    static {
        EMPTY.validPrevious = EnumSet.of(PREPARING_REBALANCE);
        PREPARING_REBALANCE.validPrevious = EnumSet.of(STABLE, COMPLETING_REBALANCE, EMPTY);
        COMPLETING_REBALANCE.validPrevious = EnumSet.of(PREPARING_REBALANCE);
        STABLE.validPrevious = EnumSet.of(COMPLETING_REBALANCE);
        DEAD.validPrevious = EnumSet.of(STABLE, PREPARING_REBALANCE, COMPLETING_REBALANCE, EMPTY, DEAD);
    }

    GroupState(String label) {
        this.label = label;
    }

    String label() {
        return label;
    }

    boolean canFollow(GroupState previous) {
        return validPrevious.contains(previous);
    }
}
