package io.brook.server.api.security;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.security.ScramCredentials;
import io.brook.server.security.ScramMechanism;
import io.brook.wire.message.AlterUserScramCredentialsRequest;
import io.brook.wire.message.AlterUserScramCredentialsRequest.ScramCredentialDeletion;
import io.brook.wire.message.AlterUserScramCredentialsRequest.ScramCredentialUpsertion;
import io.brook.wire.message.AlterUserScramCredentialsResponse;
import io.brook.wire.message.AlterUserScramCredentialsResponse.AlterUserScramCredentialsResult;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * AlterUserScramCredentials (key 51): adds, replaces and deletes users' SCRAM credentials. The
 * client salts the password (Kafka's admin client does it), the broker keeps only the stored and
 * server keys derived from it. One result per user named, with Kafka's checks: an empty name or
 * an iteration count outside 4096..16384 or an empty salted password is UNACCEPTABLE_CREDENTIAL, an unknown mechanism
 * UNSUPPORTED_SASL_MECHANISM, a user named twice DUPLICATE_RESOURCE, deleting a credential that
 * does not exist RESOURCE_NOT_FOUND. The accepted changes are written durably, together, before
 * the answer (in cluster mode: to the metadata log, applied on this node; {@link FailedChange}
 * when that fails); they apply to authentications from then on.
 */
public final class AlterUserScramCredentialsHandler implements ApiHandler<AlterUserScramCredentialsRequest> {

    private final ScramCredentials credentials;

    public AlterUserScramCredentialsHandler(ScramCredentials credentials) {
        this.credentials = credentials;
    }

    @Override
    public void handle(RequestContext ctx, AlterUserScramCredentialsRequest request) {
        Map<String, Integer> mentions = new HashMap<>();
        for (ScramCredentialDeletion d : request.deletions()) {
            mentions.merge(d.name(), 1, Integer::sum);
        }
        for (ScramCredentialUpsertion u : request.upsertions()) {
            mentions.merge(u.name(), 1, Integer::sum);
        }
        Map<String, AlterUserScramCredentialsResult> results = new LinkedHashMap<>();
        List<ScramCredentials.Change> changes = new ArrayList<>();
        Map<String, Map<ScramMechanism, Integer>> existing = credentials.describe();
        for (ScramCredentialDeletion d : request.deletions()) {
            String problem = check(d.name(), d.mechanism(), mentions, results);
            Errors error = Errors.NONE;
            if (problem == null) {
                ScramMechanism m = ScramMechanism.ofType(d.mechanism());
                if (!existing.getOrDefault(d.name(), Map.of()).containsKey(m)) {
                    error = Errors.RESOURCE_NOT_FOUND;
                    problem = "Attempt to delete a user credential that does not exist";
                } else {
                    changes.add(new ScramCredentials.Change(d.name(), m, 0, null, null));
                }
            }
            result(results, d.name(), problem, error);
        }
        for (ScramCredentialUpsertion u : request.upsertions()) {
            String problem = check(u.name(), u.mechanism(), mentions, results);
            Errors error = Errors.NONE;
            if (problem == null) {
                if (u.iterations() < ScramMechanism.MIN_ITERATIONS) {
                    error = Errors.UNACCEPTABLE_CREDENTIAL;
                    problem = "Too few iterations";
                } else if (u.iterations() > ScramMechanism.MAX_ITERATIONS) {
                    error = Errors.UNACCEPTABLE_CREDENTIAL;
                    problem = "Too many iterations";
                } else if (u.saltedPassword() == null || u.saltedPassword().length == 0) {
                    // no key to derive the stored and server keys from (Kafka fails this user with
                    // UNKNOWN_SERVER_ERROR when its HMAC refuses the empty key)
                    error = Errors.UNACCEPTABLE_CREDENTIAL;
                    problem = "Salted password must not be empty";
                } else {
                    changes.add(new ScramCredentials.Change(u.name(), ScramMechanism.ofType(u.mechanism()),
                            u.iterations(), u.salt(), u.saltedPassword()));
                }
            }
            result(results, u.name(), problem, error);
        }
        if (changes.isEmpty()) {
            ctx.respond(new AlterUserScramCredentialsResponse().results(new ArrayList<>(results.values())));
            return;
        }
        credentials.apply(changes).whenComplete((v, e) -> FailedChange.answer(ctx, e,
                f -> results.values().stream().filter(r -> r.errorCode() == Errors.NONE.code())
                        .forEach(r -> r.errorCode(f.error().code()).errorMessage(f.message())),
                () -> new AlterUserScramCredentialsResponse().results(new ArrayList<>(results.values()))));
    }

    /**
     * The request refused as a whole (a principal without ALTER on the cluster): one result for each
     * user it names, each with {@code error}, as Kafka answers it. The response has no top-level
     * error code, so an answer without those results would leave the admin client without any.
     */
    public static AlterUserScramCredentialsResponse refused(AlterUserScramCredentialsRequest request, Errors error) {
        Map<String, AlterUserScramCredentialsResult> results = new LinkedHashMap<>();
        for (ScramCredentialDeletion d : request.deletions()) {
            results.putIfAbsent(d.name(), new AlterUserScramCredentialsResult().user(d.name()).errorCode(error.code())
                    .errorMessage(null));
        }
        for (ScramCredentialUpsertion u : request.upsertions()) {
            results.putIfAbsent(u.name(), new AlterUserScramCredentialsResult().user(u.name()).errorCode(error.code())
                    .errorMessage(null));
        }
        return new AlterUserScramCredentialsResponse().results(new ArrayList<>(results.values()));
    }

    /** The error of a change already decided by its user or mechanism alone (recorded in results), or null. */
    private static String check(String name, byte mechanism, Map<String, Integer> mentions,
            Map<String, AlterUserScramCredentialsResult> results) {
        Errors error = null;
        String message = null;
        if (name == null || name.isEmpty()) {
            error = Errors.UNACCEPTABLE_CREDENTIAL;
            message = "Username must not be empty";
        } else if (mentions.get(name) > 1) {
            error = Errors.DUPLICATE_RESOURCE;
            message = "A user credential cannot be altered twice in the same request";
        } else if (ScramMechanism.ofType(mechanism) == null) {
            error = Errors.UNSUPPORTED_SASL_MECHANISM;
            message = "Unknown SCRAM mechanism";
        }
        if (error != null) {
            results.putIfAbsent(name, new AlterUserScramCredentialsResult().user(name).errorCode(error.code())
                    .errorMessage(message));
        }
        return message;
    }

    private static void result(Map<String, AlterUserScramCredentialsResult> results, String name, String problem,
            Errors error) {
        if (results.containsKey(name)) {
            return; // decided by check()
        }
        results.put(name, new AlterUserScramCredentialsResult().user(name).errorCode(error.code())
                .errorMessage(problem));
    }
}
