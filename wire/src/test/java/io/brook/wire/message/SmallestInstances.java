package io.brook.wire.message;

import io.brook.wire.protocol.BufferRecords;
import io.brook.wire.protocol.ByteBufferWriter;
import io.brook.wire.protocol.ProtocolWriter;
import io.brook.wire.protocol.Records;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Builds, by reflection over the generated classes and independently of the generator's own
 * arithmetic, the instance of a message or struct that our encoder writes in the fewest bytes at
 * a version: field by field, each takes, of the values its type allows (null, empty, a nested
 * struct at its own smallest, or the default), the one that writes fewest bytes without being
 * refused at that version. Fields are independent on the wire, so the field-wise minimum is the
 * minimum.
 */
public final class SmallestInstances {

    private final ByteBuffer out = ByteBuffer.allocate(1 << 16);

    /** The smallest instance of {@code type} (a message or one of its structs) at {@code version}. */
    public Object smallest(Class<?> type, short version) {
        try {
            Object instance = type.getConstructor().newInstance();
            for (Field f : type.getDeclaredFields()) {
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
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private List<Object> candidates(Class<?> type, short version) {
        List<Object> values = new ArrayList<>(Arrays.asList((Object) null));
        if (type == String.class) {
            values.add("");
        } else if (type == byte[].class) {
            values.add(new byte[0]);
        } else if (type == Records.class) {
            values.add(BufferRecords.EMPTY);
        } else if (type == List.class) {
            values.add(new ArrayList<>());
        } else if (type.getEnclosingClass() != null && type.getPackage() == SmallestInstances.class.getPackage()) {
            values.add(smallest(type, version));
        } else {
            values.clear(); // primitives and uuids: fixed width, the default will do
        }
        return values;
    }

    /** Bytes {@code write} produces for {@code instance} at {@code version}, or -1 when it refuses the values. */
    public int written(Object instance, short version) {
        out.clear();
        try {
            instance.getClass().getMethod("write", ProtocolWriter.class, short.class)
                    .invoke(instance, new ByteBufferWriter(out), version);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof IllegalArgumentException) {
                return -1;
            }
            throw new IllegalStateException(e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
        return out.position();
    }
}
