package io.brook.wire.oracle;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.protocol.types.BoundField;
import org.apache.kafka.common.protocol.types.Schema;
import org.apache.kafka.common.protocol.types.TaggedFields;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * Fills a kafka-clients {@code *Data} message with seeded random values, driven by the message's own
 * per-version {@link Schema} (the {@code SCHEMAS} array every generated class carries) rather than by
 * the Java fields: a field is set only if it exists in the schema of the version being written, and
 * is null only where that version's type is nullable. This matters because kafka-clients silently
 * drops non-default values of <em>ignorable</em> fields that a version lacks, which would make the
 * round trip compare unequal for reasons that have nothing to do with the codec under test.
 *
 * <p>Known tagged fields of the version are filled like any other field; unknown tagged fields are
 * left empty. Records fields get a real magic-v2 batch built with {@link MemoryRecords}.
 *
 * <p>Not thread-safe: one instance per test case (it owns the {@link Random}).
 */
final class KafkaMessageFiller {

    /** Nested arrays deeper than this are left empty so that messages stay small. */
    private static final int MAX_DEPTH = 5;

    /** Mix of 1-, 2-, 3- and 4-byte UTF-8 sequences; the last one is a surrogate pair in UTF-16. */
    private static final String[] STRING_PIECES = {
        "a", "Z", "7", "-", "_", ".", "é", "ß", "Ω", "日", "本", "€", "\uD83D\uDE00"
    };

    private static final Map<Class<?>, Map<String, Field>> FIELDS = new ConcurrentHashMap<>();
    private static final Map<String, Boolean> NULL_PROBES = new ConcurrentHashMap<>();

    private final Random random;

    KafkaMessageFiller(long seed) {
        // java.util.Random's first outputs for neighbouring seeds are nearly identical, and cases
        // use seed, seed + 1, ...: scramble first (the finaliser of MurmurHash3)
        long z = seed;
        z = (z ^ (z >>> 33)) * 0xFF51AFD7ED558CCDL;
        z = (z ^ (z >>> 33)) * 0xC4CEB9FE1A85EC53L;
        this.random = new Random(z ^ (z >>> 33));
    }

    /** A new message of {@code template}'s class with every field of {@code version} filled. */
    ApiMessage fill(ApiMessage template, short version) {
        Schema schema = schemaOf(template.getClass(), version);
        return (ApiMessage) fillStruct(schema, template.getClass(), version, 0);
    }

    /** The schema the generated class uses for {@code version}. */
    static Schema schemaOf(Class<?> messageClass, short version) {
        try {
            Schema[] schemas = (Schema[]) messageClass.getField("SCHEMAS").get(null);
            if (version < 0 || version >= schemas.length || schemas[version] == null) {
                throw new IllegalArgumentException(messageClass.getSimpleName() + " has no schema for v" + version);
            }
            return schemas[version];
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private Object fillStruct(Schema schema, Class<?> cls, short version, int depth) {
        Object target = newInstance(cls);
        for (BoundField bound : schema.fields()) {
            org.apache.kafka.common.protocol.types.Field def = bound.def;
            if (def.type instanceof TaggedFields) {
                for (org.apache.kafka.common.protocol.types.Field tagged : ((TaggedFields) def.type).fields().values()) {
                    setField(target, tagged, version, depth);
                }
            } else {
                setField(target, def, version, depth);
            }
        }
        return target;
    }

    private void setField(Object target, org.apache.kafka.common.protocol.types.Field def, short version, int depth) {
        Field javaField = javaField(target.getClass(), def.name);
        try {
            javaField.set(target, value(def.type, javaField.getGenericType(), version, depth,
                    acceptsNull(target.getClass(), javaField, def.type, version)));
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Whether kafka-clients writes null for this field at this version. Strings, bytes, arrays and
     * records say so in their schema type; struct types do not, so for them we ask the generated
     * code: size a default instance with the field null.
     */
    private static boolean acceptsNull(Class<?> owner, Field javaField, org.apache.kafka.common.protocol.types.Type type,
                                       short version) {
        if (!(type instanceof Schema)) {
            return type.isNullable();
        }
        String key = owner.getName() + "." + javaField.getName() + "@" + version;
        return NULL_PROBES.computeIfAbsent(key, k -> {
            Object probe = newInstance(owner);
            try {
                javaField.set(probe, null);
                ((Message) probe).size(new ObjectSerializationCache(), version);
                return true;
            } catch (NullPointerException | UnsupportedVersionException e) {
                return false;
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private Object value(org.apache.kafka.common.protocol.types.Type type, Type javaType, short version, int depth,
                         boolean nullable) {
        if (nullable && random.nextInt(6) == 0) {
            return null;
        }
        if (type == org.apache.kafka.common.protocol.types.Type.BOOLEAN) {
            return random.nextBoolean();
        } else if (type == org.apache.kafka.common.protocol.types.Type.INT8) {
            return (byte) random.nextInt();
        } else if (type == org.apache.kafka.common.protocol.types.Type.INT16) {
            return (short) random.nextInt();
        } else if (type == org.apache.kafka.common.protocol.types.Type.UINT16) {
            return random.nextInt(1 << 16);
        } else if (type == org.apache.kafka.common.protocol.types.Type.INT32) {
            return interestingInt();
        } else if (type == org.apache.kafka.common.protocol.types.Type.UNSIGNED_INT32) {
            return random.nextLong() & 0xFFFF_FFFFL;
        } else if (type == org.apache.kafka.common.protocol.types.Type.INT64) {
            return interestingLong();
        } else if (type == org.apache.kafka.common.protocol.types.Type.FLOAT64) {
            return random.nextBoolean() ? random.nextDouble() * 1e9 - 5e8 : (double) random.nextInt(100);
        } else if (type == org.apache.kafka.common.protocol.types.Type.UUID) {
            return new Uuid(random.nextLong() | 1L, random.nextLong());
        } else if (isString(type)) {
            return randomString();
        } else if (isBytes(type)) {
            byte[] bytes = new byte[random.nextInt(10) == 0 ? 128 + random.nextInt(300) : random.nextInt(9)];
            random.nextBytes(bytes);
            return javaType == ByteBuffer.class ? ByteBuffer.wrap(bytes) : bytes;
        } else if (isRecords(type)) {
            return randomRecords();
        } else if (type.isArray()) {
            return randomArray(type.arrayElementType().orElseThrow(), javaType, version, depth);
        } else if (type instanceof Schema) {
            return fillStruct((Schema) type, (Class<?>) javaType, version, depth + 1);
        }
        throw new IllegalArgumentException("no generator for " + type);
    }

    private int interestingInt() {
        switch (random.nextInt(5)) {
            case 0: return -1;
            case 1: return random.nextInt(100);
            case 2: return random.nextBoolean() ? Integer.MAX_VALUE : Integer.MIN_VALUE;
            default: return random.nextInt();
        }
    }

    private long interestingLong() {
        switch (random.nextInt(5)) {
            case 0: return -1L;
            case 1: return random.nextInt(100);
            case 2: return random.nextBoolean() ? Long.MAX_VALUE : Long.MIN_VALUE;
            default: return random.nextLong();
        }
    }

    /**
     * Mostly short, sometimes long enough (over 127 bytes) that compact lengths and tagged-field
     * sizes need a multi-byte varint.
     */
    private String randomString() {
        int length = random.nextInt(10) == 0 ? 40 + random.nextInt(120) : random.nextInt(7);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < length; i++) {
            sb.append(STRING_PIECES[random.nextInt(STRING_PIECES.length)]);
        }
        return sb.toString();
    }

    private MemoryRecords randomRecords() {
        int count = 1 + random.nextInt(3);
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            byte[] key = random.nextBoolean() ? null : randomString().getBytes(StandardCharsets.UTF_8);
            byte[] value = randomString().getBytes(StandardCharsets.UTF_8);
            if (random.nextInt(4) == 0) {
                value = Arrays.copyOf(value, value.length + 200); // batches over 127 bytes
            }
            records[i] = new SimpleRecord(1_700_000_000_000L + random.nextInt(1_000_000), key, value);
        }
        return MemoryRecords.withRecords(Compression.NONE, records);
    }

    @SuppressWarnings("unchecked")
    private Object randomArray(org.apache.kafka.common.protocol.types.Type elementType, Type javaType, short version,
                               int depth) {
        Class<?> raw = rawClass(javaType);
        Collection<Object> collection;
        Type elementJavaType;
        if (raw == List.class) {
            collection = new ArrayList<>();
            elementJavaType = ((ParameterizedType) javaType).getActualTypeArguments()[0];
        } else {
            // a keyed collection (ImplicitLinkedHashMultiCollection subclass) of a generated struct
            collection = (Collection<Object>) newInstance(raw);
            elementJavaType = ((ParameterizedType) raw.getGenericSuperclass()).getActualTypeArguments()[0];
        }
        int length;
        if (depth >= MAX_DEPTH) {
            length = 0;
        } else if (!(elementType instanceof Schema) && random.nextInt(10) == 0) {
            length = 128 + random.nextInt(100); // long primitive arrays: multi-byte compact counts
        } else {
            length = random.nextInt(5) == 0 ? 0 : 1 + random.nextInt(3);
        }
        for (int i = 0; i < length; i++) {
            // elements of keyed collections are complete before they are added (their hash is the key)
            collection.add(value(elementType, elementJavaType, version, depth + 1, elementType.isNullable()));
        }
        return collection;
    }

    private static Class<?> rawClass(Type type) {
        if (type instanceof Class) {
            return (Class<?>) type;
        }
        return (Class<?>) ((ParameterizedType) type).getRawType();
    }

    private static boolean isString(org.apache.kafka.common.protocol.types.Type type) {
        return type == org.apache.kafka.common.protocol.types.Type.STRING
                || type == org.apache.kafka.common.protocol.types.Type.COMPACT_STRING
                || type == org.apache.kafka.common.protocol.types.Type.NULLABLE_STRING
                || type == org.apache.kafka.common.protocol.types.Type.COMPACT_NULLABLE_STRING;
    }

    private static boolean isRecords(org.apache.kafka.common.protocol.types.Type type) {
        return type == org.apache.kafka.common.protocol.types.Type.RECORDS
                || type == org.apache.kafka.common.protocol.types.Type.COMPACT_RECORDS
                || type == org.apache.kafka.common.protocol.types.Type.NULLABLE_RECORDS
                || type == org.apache.kafka.common.protocol.types.Type.COMPACT_NULLABLE_RECORDS;
    }

    private static boolean isBytes(org.apache.kafka.common.protocol.types.Type type) {
        return type == org.apache.kafka.common.protocol.types.Type.BYTES
                || type == org.apache.kafka.common.protocol.types.Type.COMPACT_BYTES
                || type == org.apache.kafka.common.protocol.types.Type.NULLABLE_BYTES
                || type == org.apache.kafka.common.protocol.types.Type.COMPACT_NULLABLE_BYTES;
    }

    private static Object newInstance(Class<?> cls) {
        try {
            Constructor<?> constructor = cls.getDeclaredConstructor();
            constructor.setAccessible(true);
            return constructor.newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot instantiate " + cls, e);
        }
    }

    /**
     * The Java field behind a schema field: the generator derives both from one name, snake_case in
     * the schema and lowerCamelCase in Java, so they agree once underscores and case are dropped.
     */
    private static Field javaField(Class<?> cls, String schemaName) {
        Map<String, Field> byName = FIELDS.computeIfAbsent(cls, c -> {
            Map<String, Field> map = new HashMap<>();
            for (Field f : c.getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers()) || f.getName().startsWith("_")) {
                    continue;
                }
                f.setAccessible(true);
                map.put(normalise(f.getName()), f);
            }
            return map;
        });
        Field field = byName.get(normalise(schemaName));
        if (field == null) {
            throw new IllegalStateException(cls.getName() + " has no Java field for schema field " + schemaName);
        }
        return field;
    }

    private static String normalise(String name) {
        return name.replace("_", "").toLowerCase(Locale.ROOT);
    }
}
