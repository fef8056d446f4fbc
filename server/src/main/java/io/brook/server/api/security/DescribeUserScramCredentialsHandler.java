package io.brook.server.api.security;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.security.ScramCredentials;
import io.brook.server.security.ScramMechanism;
import io.brook.wire.message.DescribeUserScramCredentialsRequest;
import io.brook.wire.message.DescribeUserScramCredentialsRequest.UserName;
import io.brook.wire.message.DescribeUserScramCredentialsResponse;
import io.brook.wire.message.DescribeUserScramCredentialsResponse.CredentialInfo;
import io.brook.wire.message.DescribeUserScramCredentialsResponse.DescribeUserScramCredentialsResult;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * DescribeUserScramCredentials (key 50): which SCRAM mechanisms each user has, with their
 * iteration counts (never salts or keys). No users named (null or empty) means every user; a
 * user without credentials is RESOURCE_NOT_FOUND, a user named twice DUPLICATE_RESOURCE, as in
 * Kafka.
 */
public final class DescribeUserScramCredentialsHandler implements ApiHandler<DescribeUserScramCredentialsRequest> {

    private final ScramCredentials credentials;

    public DescribeUserScramCredentialsHandler(ScramCredentials credentials) {
        this.credentials = credentials;
    }

    @Override
    public void handle(RequestContext ctx, DescribeUserScramCredentialsRequest request) {
        Map<String, Map<ScramMechanism, Integer>> all = credentials.describe();
        List<DescribeUserScramCredentialsResult> results = new ArrayList<>();
        List<UserName> asked = request.users();
        if (asked == null || asked.isEmpty()) {
            all.forEach((user, mechanisms) -> results.add(found(user, mechanisms)));
        } else {
            Map<String, Integer> counts = new HashMap<>();
            for (UserName u : asked) {
                counts.merge(u.name(), 1, Integer::sum);
            }
            for (UserName u : asked) {
                if (counts.get(u.name()) > 1) {
                    if (counts.put(u.name(), 0) != 0) {
                        results.add(failed(u.name(), Errors.DUPLICATE_RESOURCE,
                                "Cannot describe SCRAM credentials for the same user twice in a single request"));
                    }
                } else if (counts.get(u.name()) == 1) {
                    Map<ScramMechanism, Integer> m = all.get(u.name());
                    results.add(m == null ? failed(u.name(), Errors.RESOURCE_NOT_FOUND,
                            "Attempt to describe a user credential that does not exist") : found(u.name(), m));
                }
            }
        }
        ctx.respond(new DescribeUserScramCredentialsResponse().errorCode(Errors.NONE.code()).results(results));
    }

    private static DescribeUserScramCredentialsResult found(String user, Map<ScramMechanism, Integer> mechanisms) {
        List<CredentialInfo> infos = new ArrayList<>();
        mechanisms.forEach((m, iterations) -> infos.add(new CredentialInfo().mechanism(m.type()).iterations(iterations)));
        return new DescribeUserScramCredentialsResult().user(user).errorCode(Errors.NONE.code()).credentialInfos(infos);
    }

    private static DescribeUserScramCredentialsResult failed(String user, Errors error, String message) {
        return new DescribeUserScramCredentialsResult().user(user).errorCode(error.code()).errorMessage(message);
    }
}
