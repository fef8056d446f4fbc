package io.brook.coordinator.txn;

import io.brook.wire.protocol.Errors;

/**
 * The answer to EndTxn: an error, and for transactions V2 the producer id and epoch the producer
 * continues with (-1 otherwise).
 */
public record EndTxnResult(Errors error, long producerId, short producerEpoch) {
    static EndTxnResult of(Errors e) {
        return new EndTxnResult(e, -1L, (short) -1);
    }
}
