package io.brook.wire.message;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.wire.protocol.ApiKey;
import java.lang.reflect.Method;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every struct's generated {@code minSize(version)}, which array counts are checked against, is
 * exactly the size of the smallest instance our encoder writes at that version. Too large, and a
 * valid message with many small elements would be rejected; too small, and the check would let
 * lists be sized beyond what the bytes can hold. The smallest instance is found by
 * {@link SmallestInstances}, independently of the generator.
 */
class MinimumSizeTest {

    private final SmallestInstances smallest = new SmallestInstances();

    @Test
    void minSizeOfEveryStructIsItsSmallestEncoding() throws Exception {
        int checked = 0;
        for (ApiKey key : ApiKey.values()) {
            for (Class<?> message : List.of(ApiMessages.newRequest(key).getClass(),
                    ApiMessages.newResponse(key).getClass())) {
                short lowest = message.getField("LOWEST_VERSION").getShort(null);
                short highest = message.getField("HIGHEST_VERSION").getShort(null);
                for (Class<?> struct : message.getDeclaredClasses()) {
                    Method minSize = struct.getDeclaredMethod("minSize", short.class);
                    for (short v = lowest; v <= highest; v++) {
                        Object instance = smallest.smallest(struct, v);
                        assertThat(minSize.invoke(null, v))
                                .as("%s v%d, smallest instance %s", struct.getName(), v, instance)
                                .isEqualTo(smallest.written(instance, v));
                        checked++;
                    }
                }
            }
        }
        assertThat(checked).isGreaterThan(700);
    }
}
