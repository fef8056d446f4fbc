package io.brook.cluster.controller;

/** The Kafka error a controller decision fails with (Kafka's name and code). */
public enum ControllerError {
    UNKNOWN_TOPIC_OR_PARTITION(3),
    INVALID_TOPIC_EXCEPTION(17),
    TOPIC_ALREADY_EXISTS(36),
    INVALID_PARTITIONS(37),
    INVALID_REPLICATION_FACTOR(38),
    INVALID_REPLICA_ASSIGNMENT(39),
    INVALID_CONFIG(40),
    /** The decision could not be committed by this node as controller: retriable elsewhere. */
    NOT_CONTROLLER(41),
    /** A controller-channel request this controller cannot read (malformed, or of an unknown type). */
    INVALID_REQUEST(42),
    /** A move of a partition whose previous move is still completing (its new leader reads the old log's end). */
    REASSIGNMENT_IN_PROGRESS(60),
    STALE_BROKER_EPOCH(77),
    PREFERRED_LEADER_NOT_AVAILABLE(80),
    ELIGIBLE_LEADERS_NOT_AVAILABLE(83),
    ELECTION_NOT_NEEDED(84),
    /** A cancellation, or a replica's catch-up, for a partition no reassignment is moving. */
    NO_REASSIGNMENT_IN_PROGRESS(85),
    DUPLICATE_BROKER_REGISTRATION(101),
    BROKER_ID_NOT_REGISTERED(102),
    /** AddRaftVoter of a node that is a voter already. */
    DUPLICATE_VOTER(126),
    /**
     * A conditional change of a topic's configs whose base is no longer what the topic has
     * (another change came first): the asking node computes it again from a newer image.
     */
    INVALID_UPDATE_VERSION(95),
    /** RemoveRaftVoter of a node that is not a voter, AddRaftVoter of one that does not follow the log. */
    VOTER_NOT_FOUND(127);

    private final short code;

    ControllerError(int code) {
        this.code = (short) code;
    }

    public short code() {
        return code;
    }
}
