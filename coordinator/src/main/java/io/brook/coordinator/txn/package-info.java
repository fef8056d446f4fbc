/**
 * The transaction coordinator: transactional ids, their producer ids and epochs, and the
 * transactions they run (InitProducerId, AddPartitionsToTxn, AddOffsetsToTxn, EndTxn,
 * DescribeTransactions, ListTransactions), on the {@link io.brook.coordinator.runtime coordinator
 * runtime} like the group coordinator: one owner thread, keyed timers, state written to and
 * replayed from {@code __transaction_state} through a {@link io.brook.coordinator.runtime.CoordinatorLog}.
 *
 * <h2>Public surface</h2>
 * <ul>
 *   <li>{@link io.brook.coordinator.txn.TransactionCoordinator}: one method per API, results as
 *       plain records ({@link io.brook.coordinator.txn.InitPidResult},
 *       {@link io.brook.coordinator.txn.EndTxnResult}, {@link io.brook.coordinator.txn.TxnDescription})
 *       or Kafka error codes; {@code start()} starts serving and loads the log in the background
 *       (COORDINATOR_LOAD_IN_PROGRESS for ids of a partition not loaded yet), {@code close()} stops.</li>
 *   <li>{@link io.brook.coordinator.txn.TxnCoordinatorConfig}: Kafka's config names and defaults.</li>
 *   <li>{@link io.brook.coordinator.txn.TxnMarkers}: what the broker implements to write the
 *       COMMIT and ABORT markers that end a transaction in its partitions.</li>
 *   <li>{@link io.brook.coordinator.txn.TxnState}: the states, with Kafka's ids and names.</li>
 * </ul>
 *
 * <h2>Inside</h2>
 * {@code Transactions} is the state machine (confined to the owner thread), {@code TxnSnapshot}
 * the durable state of one id, {@code TxnLogRecords} the record layout (Kafka's TransactionLogKey
 * and TransactionLogValue versions 0 and 1), {@code OpenTransactions} the concurrent view of ongoing
 * transactions that the produce path reads.
 *
 * <h2>Transactions V2 (KIP-890 part 2)</h2>
 * A client of {@code transaction.version} 2 does not send AddPartitionsToTxn or AddOffsetsToTxn:
 * the partition side adds a partition when the first transactional Produce (v12+) or
 * TxnOffsetCommit (v5+) for it arrives. Its EndTxn (v5+) bumps the epoch: the markers carry the
 * bumped epoch, which fences the old one in every partition of the transaction, and the answer
 * gives the producer the id and epoch to continue with, a new producer id once the epoch is
 * exhausted. Classic clients are served as before; which protocol a transaction runs is recorded
 * in it ({@code ClientTransactionVersion}).
 *
 * <h2>Partitioning</h2>
 * A transactional id's records live in partition {@code abs(id.hashCode()) % transaction.state.log.num.partitions}
 * of {@code __transaction_state} (Kafka's formula, 50 partitions by default). On a single node the
 * one coordinator serves every partition.
 */
package io.brook.coordinator.txn;
