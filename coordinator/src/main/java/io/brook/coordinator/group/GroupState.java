package io.brook.coordinator.group;

import java.util.EnumSet;
import java.util.Set;

/**
 * States of a classic-protocol group; see {@link GroupManager} for the transition diagram.
 * {@link #label()} is the exact string DescribeGroups and ListGroups put on the wire.
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

    /** Case-insensitive lookup of a wire label, null when unknown. */
    static GroupState forLabel(String label) {
        for (GroupState s : values()) {
            if (s.label.equalsIgnoreCase(label)) return s;
        }
        return null;
    }
}
