package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.wire.message.AlterUserScramCredentialsRequest;
import io.brook.wire.message.AlterUserScramCredentialsRequest.ScramCredentialUpsertion;
import io.brook.wire.message.AlterUserScramCredentialsResponse;
import io.brook.wire.message.DescribeUserScramCredentialsRequest;
import io.brook.wire.message.DescribeUserScramCredentialsResponse;
import io.brook.wire.protocol.Errors;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * AlterUserScramCredentials answers each user on its own, as Kafka does: a credential it cannot
 * accept fails that user only, and the other users' changes of the same request are made.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ScramCredentialChecksTest {

    private static ScramCredentialUpsertion upsert(String user, int iterations, byte[] saltedPassword) {
        return new ScramCredentialUpsertion().name(user).mechanism((byte) 2).iterations(iterations)
                .salt(new byte[] {1, 2, 3, 4}).saltedPassword(saltedPassword);
    }

    @Test
    void anUnacceptableCredentialFailsItsUserOnly() throws Exception {
        try (Brook brook = Brook.builder().port(0).start();
                ProtocolClient c = new ProtocolClient(brook.bootstrapServers())) {
            AlterUserScramCredentialsResponse r = c.call(new AlterUserScramCredentialsRequest().deletions(List.of())
                    .upsertions(List.of(upsert("empty", 4096, new byte[0]), upsert("few", 100, new byte[64]),
                            upsert("good", 4096, new byte[64]))), (short) 0);
            Map<String, Short> errors = new HashMap<>();
            r.results().forEach(u -> errors.put(u.user(), u.errorCode()));
            assertThat(errors).containsExactlyInAnyOrderEntriesOf(Map.of(
                    "empty", Errors.UNACCEPTABLE_CREDENTIAL.code(),
                    "few", Errors.UNACCEPTABLE_CREDENTIAL.code(),
                    "good", Errors.NONE.code()));
            DescribeUserScramCredentialsResponse d = c.call(new DescribeUserScramCredentialsRequest().users(null),
                    (short) 0);
            assertThat(d.results()).extracting(DescribeUserScramCredentialsResponse.DescribeUserScramCredentialsResult::user)
                    .containsExactly("good");
        }
    }
}
