package io.brook.server.api;

import io.brook.server.api.fetch.FetchHandler;
import io.brook.server.api.fetch.FetchSessionCache;
import io.brook.server.api.fetch.FetchWaiters;
import io.brook.server.api.group.DeleteGroupsHandler;
import io.brook.server.api.group.DescribeGroupsHandler;
import io.brook.server.api.group.FindCoordinatorHandler;
import io.brook.server.api.group.ConsumerGroupDescribeHandler;
import io.brook.server.api.group.ConsumerGroupHeartbeatHandler;
import io.brook.server.api.group.HeartbeatHandler;
import io.brook.server.api.group.JoinGroupHandler;
import io.brook.server.api.group.LeaveGroupHandler;
import io.brook.server.api.group.ListGroupsHandler;
import io.brook.server.api.group.OffsetCommitHandler;
import io.brook.server.api.group.OffsetDeleteHandler;
import io.brook.server.api.group.OffsetFetchHandler;
import io.brook.server.api.group.SyncGroupHandler;
import io.brook.server.api.security.AclChecks;
import io.brook.server.api.security.AlterClientQuotasHandler;
import io.brook.server.api.security.AlterUserScramCredentialsHandler;
import io.brook.server.api.security.CreateAclsHandler;
import io.brook.server.api.security.DeleteAclsHandler;
import io.brook.server.api.security.DescribeAclsHandler;
import io.brook.server.api.security.DescribeClientQuotasHandler;
import io.brook.server.api.security.CreateDelegationTokenHandler;
import io.brook.server.api.security.DescribeDelegationTokenHandler;
import io.brook.server.api.security.DescribeUserScramCredentialsHandler;
import io.brook.server.api.security.ExpireDelegationTokenHandler;
import io.brook.server.api.security.RenewDelegationTokenHandler;
import io.brook.server.api.security.SaslAuthenticateHandler;
import io.brook.server.api.security.SaslHandshakeHandler;
import io.brook.server.api.txn.AddOffsetsToTxnHandler;
import io.brook.server.api.txn.AddPartitionsToTxnHandler;
import io.brook.server.api.txn.DescribeProducersHandler;
import io.brook.server.api.txn.DescribeTransactionsHandler;
import io.brook.server.api.txn.EndTxnHandler;
import io.brook.server.api.txn.InitProducerIdHandler;
import io.brook.server.api.txn.ListTransactionsHandler;
import io.brook.server.api.txn.TxnOffsetCommitHandler;
import io.brook.server.api.txn.WriteTxnMarkersHandler;
import io.brook.server.config.BrokerConfig;
import io.brook.server.config.GroupConfigStore;
import io.brook.server.network.ApiTable;
import io.brook.server.node.BrokerContext;
import io.brook.server.security.Authorizer;
import io.brook.server.security.BrokerSecurity;
import io.brook.server.security.ScramCredentials;
import io.brook.server.telemetry.ClientTelemetry;
import io.brook.wire.protocol.ApiKey;
import java.util.function.Supplier;

/**
 * The APIs this broker serves, each with the version range it advertises in ApiVersions: the one
 * place that decides what a client is told. Ranges stay within what the wire codec reads and
 * writes ({@link ApiKey#oldestVersion()}..{@link ApiKey#latestVersion()}), which the table checks.
 *
 * <p>Produce is advertised from v0 but served from v3 only: old librdkafka turns compression on
 * only when it sees Produce v0 advertised, and a v0–v2 request that does arrive closes the
 * connection, as Apache Kafka does. AlterConfigs (the API before KIP-339) is still served because
 * kafkajs and librdkafka use it for topic configs.
 */
public final class BrokerApis {

    private BrokerApis() {
    }

    /**
     * The handler table over {@code broker}; long-poll fetches wait in {@code fetchWaiters},
     * incremental fetch sessions live in {@code fetchSessions}, ApiVersions lists {@code features},
     * KIP-714 client telemetry goes to {@code telemetry};
     * with the broker's security: its SCRAM credentials, and its authorizer, whose checks
     * ({@link AclChecks}) go in front of every handler when it is enabled.
     */
    public static ApiTable table(BrokerContext broker, FetchWaiters fetchWaiters, FetchSessionCache fetchSessions,
            FeatureLevels features, BrokerSecurity security, ClientTelemetry telemetry, GroupConfigStore groupConfigs) {
        ScramCredentials scram = security.scram();
        Authorizer authorizer = security.authorizer();
        Supplier<String> consumerProtocolOff = consumerProtocolOff(broker.config(), features);
        return ApiTable.builder()
                .wrapping(authorizer.enabled() ? new AclChecks(authorizer, broker.topics()) : null)
                .requestTimeQuota(security.quotas()::requestTime)
                .register(ApiKey.PRODUCE, 0, 13, 3, new ProduceHandler(broker, security.quotas()))
                .register(ApiKey.FETCH, 4, 18,
                        new FetchHandler(broker, fetchWaiters, fetchSessions, security.quotas()))
                .register(ApiKey.LIST_OFFSETS, 1, 11, new ListOffsetsHandler(broker))
                .register(ApiKey.METADATA, 0, 13, new MetadataHandler(broker, authorizer, security.quotas()))
                .register(ApiKey.OFFSET_COMMIT, 2, 10, new OffsetCommitHandler(broker))
                .register(ApiKey.OFFSET_FETCH, 1, 10, new OffsetFetchHandler(broker))
                .register(ApiKey.FIND_COORDINATOR, 0, 6, new FindCoordinatorHandler(broker))
                .register(ApiKey.JOIN_GROUP, 0, 9, new JoinGroupHandler(broker))
                .register(ApiKey.HEARTBEAT, 0, 4, new HeartbeatHandler(broker))
                .register(ApiKey.LEAVE_GROUP, 0, 5, new LeaveGroupHandler(broker))
                .register(ApiKey.SYNC_GROUP, 0, 5, new SyncGroupHandler(broker))
                .register(ApiKey.DESCRIBE_GROUPS, 0, 6, new DescribeGroupsHandler(broker))
                .register(ApiKey.LIST_GROUPS, 0, 5, new ListGroupsHandler(broker))
                .register(ApiKey.CONSUMER_GROUP_HEARTBEAT, 0, 1,
                        new ConsumerGroupHeartbeatHandler(broker, consumerProtocolOff, authorizer))
                .register(ApiKey.CONSUMER_GROUP_DESCRIBE, 0, 1,
                        new ConsumerGroupDescribeHandler(broker, consumerProtocolOff))
                .register(ApiKey.API_VERSIONS, 0, 5,
                        new ApiVersionsHandler(broker.clusterId(), broker.nodeId(), features))
                .register(ApiKey.CREATE_TOPICS, 2, 7, new CreateTopicsHandler(broker, security.quotas()))
                .register(ApiKey.DELETE_TOPICS, 1, 6, new DeleteTopicsHandler(broker, security.quotas()))
                .register(ApiKey.DELETE_RECORDS, 0, 2, new DeleteRecordsHandler(broker))
                .register(ApiKey.INIT_PRODUCER_ID, 0, 5, new InitProducerIdHandler(broker))
                .register(ApiKey.ADD_PARTITIONS_TO_TXN, 0, 5,
                        new AddPartitionsToTxnHandler(broker))
                .register(ApiKey.ADD_OFFSETS_TO_TXN, 0, 4, new AddOffsetsToTxnHandler(broker))
                .register(ApiKey.END_TXN, 0, 5, new EndTxnHandler(broker))
                .register(ApiKey.WRITE_TXN_MARKERS, 1, 2, new WriteTxnMarkersHandler(broker))
                .register(ApiKey.TXN_OFFSET_COMMIT, 0, 6,
                        new TxnOffsetCommitHandler(broker))
                .register(ApiKey.OFFSET_FOR_LEADER_EPOCH, 2, 4,
                        new OffsetForLeaderEpochHandler(broker))
                .register(ApiKey.DESCRIBE_CONFIGS, 1, 4, new DescribeConfigsHandler(broker, telemetry, groupConfigs))
                .register(ApiKey.ALTER_CONFIGS, 0, 2, new AlterConfigsHandler(broker, telemetry, security, groupConfigs))
                .register(ApiKey.ALTER_REPLICA_LOG_DIRS, 1, 2, new AlterReplicaLogDirsHandler(broker))
                .register(ApiKey.DESCRIBE_LOG_DIRS, 1, 5, new DescribeLogDirsHandler(broker))
                .register(ApiKey.CREATE_PARTITIONS, 0, 3,
                        new CreatePartitionsHandler(broker, security.quotas()))
                .register(ApiKey.DELETE_GROUPS, 0, 3, new DeleteGroupsHandler(broker))
                .register(ApiKey.ELECT_LEADERS, 0, 2, new ElectLeadersHandler(broker))
                .register(ApiKey.INCREMENTAL_ALTER_CONFIGS, 0, 1,
                        new IncrementalAlterConfigsHandler(broker, telemetry, security, groupConfigs))
                .register(ApiKey.ALTER_PARTITION_REASSIGNMENTS, 0, 1,
                        new AlterPartitionReassignmentsHandler(broker))
                .register(ApiKey.LIST_PARTITION_REASSIGNMENTS, 0, 0,
                        new ListPartitionReassignmentsHandler(broker))
                .register(ApiKey.OFFSET_DELETE, 0, 0, new OffsetDeleteHandler(broker))
                .register(ApiKey.DESCRIBE_QUORUM, 0, 2, new DescribeQuorumHandler(broker))
                .register(ApiKey.UPDATE_FEATURES, 0, 2,
                        new UpdateFeaturesHandler(broker.nodeId(), features))
                .register(ApiKey.DESCRIBE_CLUSTER, 0, 2, new DescribeClusterHandler(broker))
                .register(ApiKey.DESCRIBE_TOPIC_PARTITIONS, 0, 0, new DescribeTopicPartitionsHandler(broker, authorizer))
                .register(ApiKey.DESCRIBE_PRODUCERS, 0, 0,
                        new DescribeProducersHandler(broker, authorizer))
                .register(ApiKey.DESCRIBE_TRANSACTIONS, 0, 0,
                        new DescribeTransactionsHandler(broker, authorizer))
                .register(ApiKey.LIST_TRANSACTIONS, 0, 2, new ListTransactionsHandler(broker,
                        authorizer))
                .register(ApiKey.SASL_HANDSHAKE, 0, 1, new SaslHandshakeHandler())
                .register(ApiKey.SASL_AUTHENTICATE, 0, 2, new SaslAuthenticateHandler(broker.timer()))
                .register(ApiKey.CREATE_DELEGATION_TOKEN, 1, 3,
                        new CreateDelegationTokenHandler(security.tokens(), authorizer))
                .register(ApiKey.RENEW_DELEGATION_TOKEN, 1, 2, new RenewDelegationTokenHandler(security.tokens()))
                .register(ApiKey.EXPIRE_DELEGATION_TOKEN, 1, 2, new ExpireDelegationTokenHandler(security.tokens()))
                .register(ApiKey.DESCRIBE_DELEGATION_TOKEN, 1, 3,
                        new DescribeDelegationTokenHandler(security.tokens(), authorizer))
                .register(ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS, 0, 0,
                        new DescribeUserScramCredentialsHandler(scram))
                .register(ApiKey.ALTER_USER_SCRAM_CREDENTIALS, 0, 0,
                        new AlterUserScramCredentialsHandler(scram))
                .register(ApiKey.DESCRIBE_CLIENT_QUOTAS, 0, 1,
                        new DescribeClientQuotasHandler(security.quotaStore()))
                .register(ApiKey.ALTER_CLIENT_QUOTAS, 0, 1,
                        new AlterClientQuotasHandler(security.quotaStore()))
                .register(ApiKey.GET_TELEMETRY_SUBSCRIPTIONS, 0, 0,
                        new GetTelemetrySubscriptionsHandler(telemetry))
                .register(ApiKey.PUSH_TELEMETRY, 0, 0, new PushTelemetryHandler(telemetry))
                .register(ApiKey.LIST_CONFIG_RESOURCES, 0, 1,
                        new ListConfigResourcesHandler(broker, telemetry, groupConfigs))
                .register(ApiKey.DESCRIBE_ACLS, 1, 3, new DescribeAclsHandler(authorizer))
                .register(ApiKey.CREATE_ACLS, 1, 3, new CreateAclsHandler(authorizer))
                .register(ApiKey.DELETE_ACLS, 1, 3, new DeleteAclsHandler(authorizer))
                .register(ApiKey.UNREGISTER_BROKER, 0, 0, new UnregisterBrokerHandler(broker))
                .register(ApiKey.ADD_RAFT_VOTER, 0, 1, new AddRaftVoterHandler(broker))
                .register(ApiKey.REMOVE_RAFT_VOTER, 0, 0, new RemoveRaftVoterHandler(broker))
                .build();
    }

    /**
     * Why KIP-848's consumer protocol is off, or null while it is on: on unless the broker's
     * {@code group.coordinator.rebalance.protocols} leaves {@code consumer} out or
     * {@code group.version} is finalized below 1, as in Kafka.
     */
    private static Supplier<String> consumerProtocolOff(BrokerConfig config, FeatureLevels features) {
        if (!config.list(BrokerConfig.GROUP_COORDINATOR_REBALANCE_PROTOCOLS).contains("consumer")) {
            return () -> "The consumer group protocol is off: group.coordinator.rebalance.protocols does not name consumer.";
        }
        return () -> features.finalizedLevel(FeatureLevels.GROUP_VERSION) >= 1
                ? null : "The consumer group protocol is off: group.version is finalized below 1.";
    }
}
