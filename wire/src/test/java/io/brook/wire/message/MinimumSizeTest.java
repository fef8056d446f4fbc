package io.brook.wire.message;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.wire.protocol.ApiKey;
import io.brook.wire.protocol.BufferRecords;
import io.brook.wire.protocol.ByteBufferWriter;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every struct's generated {@code minSize(version)}, which array counts are checked against, is
 * exactly the size of the smallest instance our encoder writes at that version. Too large, and a
 * valid message with many small elements would be rejected; too small, and the check would let
 * lists be sized beyond what the bytes can hold.
 *
 * <p>The smallest instance is found field by field, independently of the generator: each field
 * takes, of the values its type allows (null, empty, a nested struct at its own smallest, or the
 * default), the one that writes fewest bytes without being refused at that version.
 */
class MinimumSizeTest {

    private static final ByteBuffer OUT = ByteBuffer.allocate(1 << 16);

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
                        Object smallest = smallest(struct, v);
                        assertThat(minSize.invoke(null, v))
                                .as("%s v%d, smallest instance %s", struct.getName(), v, smallest)
                                .isEqualTo(written(smallest, v));
                        checked++;
                    }
                }
            }
        }
        assertThat(checked).isGreaterThan(700);
    }

    /** The instance of {@code struct} that writes fewest bytes at {@code version}. */
    private static Object smallest(Class<?> struct, short version) throws Exception {
        Object instance = struct.getConstructor().newInstance();
        for (Field f : struct.getDeclaredFields()) {
            if (Modifier.isStatic(f.getModifiers())) {
                continue;
            }
            f.setAccessible(true);
            Object best = f.get(instance);
            int bestSize = written(instance, version);
            for (Object candidate : candidates(f.getType(), version)) {
                f.set(instance, candidate);
                int size = written(instance, version);
                if (size >= 0 && (bestSize < 0 || size < bestSize)) {
                    best = candidate;
                    bestSize = size;
                }
            }
            f.set(instance, best);
        }
        return instance;
    }

    private static List<Object> candidates(Class<?> type, short version) throws Exception {
        List<Object> values = new ArrayList<>(Arrays.asList((Object) null));
        if (type == String.class) {
            values.add("");
        } else if (type == byte[].class) {
            values.add(new byte[0]);
        } else if (type == io.brook.wire.protocol.Records.class) {
            values.add(BufferRecords.EMPTY);
        } else if (type == List.class) {
            values.add(new ArrayList<>());
        } else if (type.getEnclosingClass() != null && type.getPackage() == MinimumSizeTest.class.getPackage()) {
            values.add(smallest(type, version));
        } else {
            values.clear(); // primitives and uuids: fixed width, the default will do
        }
        return values;
    }

    /** Bytes {@code struct.write} produces at {@code version}, or -1 when it refuses the values. */
    private static int written(Object struct, short version) throws Exception {
        OUT.clear();
        try {
            struct.getClass().getMethod("write", io.brook.wire.protocol.ProtocolWriter.class, short.class)
                    .invoke(struct, new ByteBufferWriter(OUT), version);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof IllegalArgumentException) {
                return -1;
            }
            throw e;
        }
        return OUT.position();
    }
}
