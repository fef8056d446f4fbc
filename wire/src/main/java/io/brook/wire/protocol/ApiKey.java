package io.brook.wire.protocol;

/**
 * The Kafka API keys Brook knows, each with the range of versions the codec of this module reads
 * and writes ({@link #oldestVersion()}..{@link #latestVersion()}, the {@code valid=} range of its
 * schemas) and its first flexible version. Which versions a broker advertises and accepts is the
 * server's decision, not a property of the codec.
 *
 * <p>Constant names match kafka-clients' {@code ApiKeys} so that tests can map one onto the other
 * by name.
 */
public enum ApiKey {
    // id, name, codec oldest..latest, first flexible version (-1 = never)
    PRODUCE(0, "Produce", 3, 13, 9),
    FETCH(1, "Fetch", 4, 18, 12),
    LIST_OFFSETS(2, "ListOffsets", 1, 11, 6),
    METADATA(3, "Metadata", 0, 13, 9),
    OFFSET_COMMIT(8, "OffsetCommit", 2, 10, 8),
    OFFSET_FETCH(9, "OffsetFetch", 1, 10, 6),
    FIND_COORDINATOR(10, "FindCoordinator", 0, 6, 3),
    JOIN_GROUP(11, "JoinGroup", 0, 9, 6),
    HEARTBEAT(12, "Heartbeat", 0, 4, 4),
    LEAVE_GROUP(13, "LeaveGroup", 0, 5, 4),
    SYNC_GROUP(14, "SyncGroup", 0, 5, 4),
    DESCRIBE_GROUPS(15, "DescribeGroups", 0, 6, 5),
    LIST_GROUPS(16, "ListGroups", 0, 5, 3),
    SASL_HANDSHAKE(17, "SaslHandshake", 0, 1, -1),
    API_VERSIONS(18, "ApiVersions", 0, 5, 3),
    CREATE_TOPICS(19, "CreateTopics", 2, 7, 5),
    DELETE_TOPICS(20, "DeleteTopics", 1, 6, 4),
    DELETE_RECORDS(21, "DeleteRecords", 0, 2, 2),
    INIT_PRODUCER_ID(22, "InitProducerId", 0, 6, 2),
    OFFSET_FOR_LEADER_EPOCH(23, "OffsetForLeaderEpoch", 2, 4, 4),
    ADD_PARTITIONS_TO_TXN(24, "AddPartitionsToTxn", 0, 5, 3),
    ADD_OFFSETS_TO_TXN(25, "AddOffsetsToTxn", 0, 4, 3),
    END_TXN(26, "EndTxn", 0, 5, 3),
    WRITE_TXN_MARKERS(27, "WriteTxnMarkers", 1, 2, 1),
    TXN_OFFSET_COMMIT(28, "TxnOffsetCommit", 0, 6, 3),
    DESCRIBE_ACLS(29, "DescribeAcls", 1, 3, 2),
    CREATE_ACLS(30, "CreateAcls", 1, 3, 2),
    DELETE_ACLS(31, "DeleteAcls", 1, 3, 2),
    DESCRIBE_CONFIGS(32, "DescribeConfigs", 1, 4, 4),
    ALTER_CONFIGS(33, "AlterConfigs", 0, 2, 2),
    ALTER_REPLICA_LOG_DIRS(34, "AlterReplicaLogDirs", 1, 2, 2),
    DESCRIBE_LOG_DIRS(35, "DescribeLogDirs", 1, 5, 2),
    SASL_AUTHENTICATE(36, "SaslAuthenticate", 0, 2, 2),
    CREATE_PARTITIONS(37, "CreatePartitions", 0, 3, 2),
    CREATE_DELEGATION_TOKEN(38, "CreateDelegationToken", 1, 3, 2),
    RENEW_DELEGATION_TOKEN(39, "RenewDelegationToken", 1, 2, 2),
    EXPIRE_DELEGATION_TOKEN(40, "ExpireDelegationToken", 1, 2, 2),
    DESCRIBE_DELEGATION_TOKEN(41, "DescribeDelegationToken", 1, 3, 2),
    DELETE_GROUPS(42, "DeleteGroups", 0, 3, 2),
    ELECT_LEADERS(43, "ElectLeaders", 0, 2, 2),
    INCREMENTAL_ALTER_CONFIGS(44, "IncrementalAlterConfigs", 0, 1, 1),
    ALTER_PARTITION_REASSIGNMENTS(45, "AlterPartitionReassignments", 0, 1, 0),
    LIST_PARTITION_REASSIGNMENTS(46, "ListPartitionReassignments", 0, 0, 0),
    OFFSET_DELETE(47, "OffsetDelete", 0, 0, -1),
    DESCRIBE_CLIENT_QUOTAS(48, "DescribeClientQuotas", 0, 1, 1),
    ALTER_CLIENT_QUOTAS(49, "AlterClientQuotas", 0, 1, 1),
    DESCRIBE_USER_SCRAM_CREDENTIALS(50, "DescribeUserScramCredentials", 0, 0, 0),
    ALTER_USER_SCRAM_CREDENTIALS(51, "AlterUserScramCredentials", 0, 0, 0),
    DESCRIBE_QUORUM(55, "DescribeQuorum", 0, 2, 0),
    UPDATE_FEATURES(57, "UpdateFeatures", 0, 2, 0),
    DESCRIBE_CLUSTER(60, "DescribeCluster", 0, 2, 0),
    DESCRIBE_PRODUCERS(61, "DescribeProducers", 0, 0, 0),
    UNREGISTER_BROKER(64, "UnregisterBroker", 0, 0, 0),
    DESCRIBE_TRANSACTIONS(65, "DescribeTransactions", 0, 0, 0),
    LIST_TRANSACTIONS(66, "ListTransactions", 0, 2, 0),
    CONSUMER_GROUP_HEARTBEAT(68, "ConsumerGroupHeartbeat", 0, 1, 0),
    CONSUMER_GROUP_DESCRIBE(69, "ConsumerGroupDescribe", 0, 1, 0),
    GET_TELEMETRY_SUBSCRIPTIONS(71, "GetTelemetrySubscriptions", 0, 0, 0),
    PUSH_TELEMETRY(72, "PushTelemetry", 0, 0, 0),
    LIST_CONFIG_RESOURCES(74, "ListConfigResources", 0, 1, 0),
    DESCRIBE_TOPIC_PARTITIONS(75, "DescribeTopicPartitions", 0, 0, 0),
    ADD_RAFT_VOTER(80, "AddRaftVoter", 0, 1, 0),
    REMOVE_RAFT_VOTER(81, "RemoveRaftVoter", 0, 0, 0);

    /** Highest API key id plus one; keys are small, so lookup is an array index. */
    private static final int MAX_ID = 82;
    private static final ApiKey[] BY_ID = new ApiKey[MAX_ID];

    static {
        for (ApiKey key : values()) {
            BY_ID[key.id] = key;
        }
    }

    private final short id;
    private final String displayName;
    private final short oldestVersion;
    private final short latestVersion;
    private final short flexibleFrom;

    ApiKey(int id, String displayName, int oldest, int latest, int flexibleFrom) {
        this.id = (short) id;
        this.displayName = displayName;
        this.oldestVersion = (short) oldest;
        this.latestVersion = (short) latest;
        this.flexibleFrom = (short) flexibleFrom;
    }

    public short id() {
        return id;
    }

    /** The API's name as Kafka's documentation writes it, e.g. {@code "ApiVersions"}. */
    public String displayName() {
        return displayName;
    }

    /** Lowest version the codec reads and writes. */
    public short oldestVersion() {
        return oldestVersion;
    }

    /** Highest version the codec reads and writes. */
    public short latestVersion() {
        return latestVersion;
    }

    /** First flexible (KIP-482) version, or -1 when the API has none. */
    public short flexibleFrom() {
        return flexibleFrom;
    }

    /**
     * Whether {@code version} uses compact types and tagged fields. Versions above
     * {@link #latestVersion()} count as flexible when the API has flexible versions, which is what
     * lets a broker read the header of an ApiVersions request that is newer than it knows.
     */
    public boolean isFlexible(short version) {
        return flexibleFrom >= 0 && version >= flexibleFrom;
    }

    /** Request header version: 2 for flexible versions, else 1 (header v0 is gone since Kafka 4.0). */
    public short requestHeaderVersion(short version) {
        return isFlexible(version) ? (short) 2 : (short) 1;
    }

    /**
     * Response header version: 1 for flexible versions, else 0, except ApiVersions whose response
     * always uses header v0 so that a client that knows nothing about the broker can parse it
     * (KIP-511).
     */
    public short responseHeaderVersion(short version) {
        if (this == API_VERSIONS) {
            return 0;
        }
        return isFlexible(version) ? (short) 1 : (short) 0;
    }

    /** The key with this id, or null when Brook does not know it. */
    public static ApiKey forId(int id) {
        return id >= 0 && id < MAX_ID ? BY_ID[id] : null;
    }
}
