/**
 * The transaction APIs, one handler each: InitProducerId (with and without a transactional id),
 * AddPartitionsToTxn, AddOffsetsToTxn, EndTxn, DescribeTransactions and ListTransactions as thin
 * adapters over the transaction coordinator (module {@code coordinator}, which answers after its
 * write is durable), TxnOffsetCommit over the group coordinator, and WriteTxnMarkers and
 * DescribeProducers over the partition logs. Transactional produce itself is checked in the
 * Produce handler. See docs/transactions.md.
 */
package io.brook.server.api.txn;
