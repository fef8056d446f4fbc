package io.brook.wire.message;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.wire.message.CreateAclsResponse.AclCreationResult;
import io.brook.wire.protocol.ByteBufferWriter;
import io.brook.wire.protocol.Utf8;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An error message longer than a classic string can carry (a message quoting a client's long
 * input) is shortened by the field's setter, so the answer still encodes with its error code.
 */
class ErrorMessageLengthTest {

    @Test
    void aMessageTooLongForAClassicStringIsShortenedAndTheAnswerEncodes() {
        for (String repeated : List.of("x", "é", "€", "😀")) {
            String message = repeated.repeat(40_000);
            CreateAclsResponse response = new CreateAclsResponse().results(List.of(
                    new AclCreationResult().errorCode((short) 42).errorMessage(message)));
            String kept = response.results().get(0).errorMessage();
            assertThat(kept).endsWith(MessageUtil.TRUNCATED);
            assertThat(Utf8.encodedLength(kept)).isLessThanOrEqualTo(Short.MAX_VALUE);
            assertThat(message).startsWith(kept.substring(0, kept.length() - MessageUtil.TRUNCATED.length()));
            assertThat(Character.isHighSurrogate(kept.charAt(kept.length() - MessageUtil.TRUNCATED.length() - 1)))
                    .isFalse();

            ByteBuffer buf = ByteBuffer.allocate(response.size((short) 1));
            response.write(new ByteBufferWriter(buf), (short) 1); // v1: classic strings
            CreateAclsResponse read = CreateAclsResponse.read(buf.flip(), (short) 1);
            assertThat(read.results().get(0).errorCode()).isEqualTo((short) 42);
            assertThat(read.results().get(0).errorMessage()).isEqualTo(kept);
        }
    }

    @Test
    void messagesThatFitAreKeptAsTheyAre() {
        String longest = "y".repeat(Short.MAX_VALUE);
        assertThat(new AclCreationResult().errorMessage(longest).errorMessage()).isSameAs(longest);
        assertThat(new AclCreationResult().errorMessage(null).errorMessage()).isNull();
        assertThat(new AclCreationResult().errorMessage("short").errorMessage()).isEqualTo("short");
    }
}
