package io.brook.coordinator.txn;

import java.util.Map;
import java.util.SortedSet;

import io.brook.wire.protocol.Errors;

/** One transactional id as DescribeTransactions and ListTransactions show it. */
public record TxnDescription(String transactionalId, Errors error, String state, long producerId, short producerEpoch,
                             int timeoutMs, long startMs, Map<String, SortedSet<Integer>> partitions) {
}
