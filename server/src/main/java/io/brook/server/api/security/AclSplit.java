package io.brook.server.api.security;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.ApiRequest;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * Kafka's per-resource authorization of one API whose request lists several resources (topics,
 * groups, config resources): the items the principal may use go to the handler, the others are
 * answered with their own error (TOPIC_AUTHORIZATION_FAILED per topic or partition, and so on)
 * in the same response, next to the handler's answers.
 *
 * <p>How: the request's list is split; the refused items' answers come from the request's
 * generated error response (built over the refused items only, so each refused topic or partition
 * gets exactly the entry the handler's own error path would give it); the handler then runs on
 * the request narrowed to the allowed items, and {@link RequestContext#mergeIntoResponse} appends
 * the refused items' entries to whatever it answers. When nothing is allowed, the handler is not
 * called: the answer is the generated response with no error of its own plus the refused items.
 *
 * <p>Where the response has one entry per name (Kafka's keyed collections: the topics of
 * CreateTopics, DeleteTopics and CreatePartitions), an item whose key the request names more than
 * once is not checked but handed on: its handler refuses it as a duplicate, with one entry for the
 * name, before any authorization, as Kafka does (an entry per item would repeat the name, and
 * clients reject a response that does).
 *
 * @param <Q> the request
 * @param <T> an item of the request's list
 * @param <R> the response
 * @param <E> an entry of the response's list
 */
final class AclSplit<Q extends ApiRequest, T, R extends ApiMessage, E> {

    private final Function<Q, List<T>> items;
    private final BiConsumer<Q, List<T>> setItems;
    private final Function<R, List<E>> results;
    private final BiConsumer<R, List<E>> setResults;
    private final BiFunction<AclChecks.Who, T, Errors> denial;
    /** An item's key where the response has an entry per key, else null. */
    private final Function<T, Object> key;

    /**
     * @param items the request's list (null: nothing to split)
     * @param setItems replaces the request's list
     * @param results the response's list
     * @param setResults replaces the response's list
     * @param denial the error refusing an item, or null when it is allowed
     */
    AclSplit(Function<Q, List<T>> items, BiConsumer<Q, List<T>> setItems, Function<R, List<E>> results,
            BiConsumer<R, List<E>> setResults, BiFunction<AclChecks.Who, T, Errors> denial) {
        this(items, setItems, results, setResults, denial, null);
    }

    /** As above, for a response with one entry per {@code key} of an item (see the class comment). */
    AclSplit(Function<Q, List<T>> items, BiConsumer<Q, List<T>> setItems, Function<R, List<E>> results,
            BiConsumer<R, List<E>> setResults, BiFunction<AclChecks.Who, T, Errors> denial, Function<T, Object> key) {
        this.items = items;
        this.setItems = setItems;
        this.results = results;
        this.setResults = setResults;
        this.denial = denial;
        this.key = key;
    }

    /**
     * Serves {@code request} through {@code handler} as far as {@code who} may, answering the rest.
     * {@code closeIfSilent}: the reason to close the connection when the handler answers nothing
     * (an acks=0 Produce), or null.
     */
    @SuppressWarnings("unchecked")
    void handle(RequestContext ctx, Q request, AclChecks.Who who, ApiHandler<Q> handler, String closeIfSilent) {
        List<T> all = items.apply(request);
        if (all == null || all.isEmpty()) {
            handler.handle(ctx, request);
            return;
        }
        List<T> allowed = new ArrayList<>(all.size());
        Map<Errors, List<T>> refused = new LinkedHashMap<>();
        Map<Object, Integer> counts = new HashMap<>();
        if (key != null) {
            for (T item : all) {
                counts.merge(key.apply(item), 1, Integer::sum);
            }
        }
        for (T item : all) {
            Errors e = key != null && counts.get(key.apply(item)) > 1 ? null : denial.apply(who, item);
            if (e == null) {
                allowed.add(item);
            } else {
                refused.computeIfAbsent(e, k -> new ArrayList<>()).add(item);
            }
        }
        if (refused.isEmpty()) {
            handler.handle(ctx, request);
            return;
        }
        short version = ctx.apiVersion();
        List<E> answers = new ArrayList<>();
        for (Map.Entry<Errors, List<T>> r : refused.entrySet()) {
            setItems.accept(request, r.getValue());
            answers.addAll(results.apply((R) request.errorResponse(version, r.getKey())));
        }
        setItems.accept(request, allowed);
        if (allowed.isEmpty()) {
            if (closeIfSilent != null) {
                ctx.closeConnection(closeIfSilent);
                return;
            }
            R response = (R) request.errorResponse(version, Errors.NONE);
            setResults.accept(response, answers);
            ctx.respond(response);
            return;
        }
        ctx.mergeIntoResponse(m -> {
            R response = (R) m;
            List<E> served = results.apply(response);
            List<E> merged = new ArrayList<>((served == null ? 0 : served.size()) + answers.size());
            if (served != null) {
                merged.addAll(served);
            }
            merged.addAll(answers);
            setResults.accept(response, merged);
            return response;
        }, closeIfSilent);
        handler.handle(ctx, request);
    }
}
