package io.brook.server.api.txn;

import io.brook.coordinator.txn.TxnDescription;
import io.brook.coordinator.txn.TxnState;
import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.server.security.Acl;
import io.brook.server.security.Authorizer;
import io.brook.wire.message.ListTransactionsRequest;
import io.brook.wire.message.ListTransactionsResponse;
import io.brook.wire.message.ListTransactionsResponse.TransactionState;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * ListTransactions (key 66): the transactional ids this coordinator knows, filtered by state
 * (names Kafka does not know are returned in {@code unknown_state_filters} and match nothing),
 * producer id, v1's minimum running time of an ongoing transaction and v2's regular expression on
 * the transactional id (INVALID_REGULAR_EXPRESSION when it does not compile). With ACLs, only the
 * ids the client may DESCRIBE are listed, as in Kafka.
 */
public final class ListTransactionsHandler implements ApiHandler<ListTransactionsRequest> {

    private final BrokerContext broker;
    private final Authorizer authorizer;

    /** Over {@code broker}'s coordinator; {@code authorizer} null or disabled: no ACLs. */
    public ListTransactionsHandler(BrokerContext broker, Authorizer authorizer) {
        this.broker = broker;
        this.authorizer = authorizer != null && authorizer.enabled() ? authorizer : null;
    }

    @Override
    public void handle(RequestContext ctx, ListTransactionsRequest request) {
        short version = ctx.apiVersion();
        Set<String> states = new HashSet<>();
        List<String> unknown = new ArrayList<>();
        for (String s : request.stateFilters()) {
            TxnState state = TxnState.fromLabel(s);
            if (state == null) {
                unknown.add(s);
            } else {
                states.add(state.label());
            }
        }
        if (!unknown.isEmpty() && states.isEmpty()) {
            ctx.respond(new ListTransactionsResponse().unknownStateFilters(unknown));
            return;
        }
        Pattern pattern = null;
        String regex = version >= 2 ? request.transactionalIdPattern() : null;
        if (regex != null && !regex.isEmpty()) {
            try {
                pattern = Pattern.compile(regex);
            } catch (PatternSyntaxException e) {
                ctx.respond(new ListTransactionsResponse().errorCode(Errors.INVALID_REGULAR_EXPRESSION.code()));
                return;
            }
        }
        Pattern ids = pattern;
        long duration = version >= 1 ? request.durationFilter() : -1L;
        ctx.respondWhenDone(TxnRequests.coordinator(broker)
                .list(states, new HashSet<>(request.producerIdFilters()), duration).thenApply(listing -> {
                    if (listing.error() != Errors.NONE) {
                        return new ListTransactionsResponse().errorCode(listing.error().code());
                    }
                    List<TransactionState> out = new ArrayList<>(listing.transactions().size());
                    for (TxnDescription d : listing.transactions()) {
                        if (ids != null && !ids.matcher(d.transactionalId()).matches()
                                || !TxnRequests.may(authorizer, ctx, Acl.DESCRIBE, Acl.TRANSACTIONAL_ID,
                                        d.transactionalId())) {
                            continue;
                        }
                        out.add(new TransactionState().transactionalId(d.transactionalId()).producerId(d.producerId())
                                .transactionState(d.state()));
                    }
                    return new ListTransactionsResponse().unknownStateFilters(unknown).transactionStates(out);
                }));
    }
}
