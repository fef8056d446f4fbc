package io.brook.coordinator.txn;

import io.brook.wire.protocol.Errors;
import java.util.List;

/**
 * ListTransactions' answer from the coordinator: the transactions that match, or, with no
 * transactions, the error of a coordinator that cannot list them all (COORDINATOR_LOAD_IN_PROGRESS
 * while a partition of {@code __transaction_state} loads, which the admin client retries).
 */
public record TxnListing(Errors error, List<TxnDescription> transactions) {

    public TxnListing {
        transactions = List.copyOf(transactions);
    }

    static TxnListing failed(Errors error) {
        return new TxnListing(error, List.of());
    }
}
