package io.brook.wire.generator;

import java.util.Map;

/** What a schema type is, with its Java types and fixed wire width (-1 for variable). */
enum Kind {
    INT8("byte", "Byte", 1), INT16("short", "Short", 2), INT32("int", "Integer", 4), INT64("long", "Long", 8),
    UINT16("int", "Integer", 2), UINT32("long", "Long", 4), FLOAT64("double", "Double", 8),
    BOOL("boolean", "Boolean", 1), UUID("UUID", "UUID", 16), STRING("String", "String", -1),
    BYTES("byte[]", "byte[]", -1), RECORDS("Records", "Records", -1), STRUCT(null, null, -1),
    ARRAY(null, null, -1);

    /** The primitive types by their schema names. */
    static final Map<String, Kind> PRIMITIVES = Map.ofEntries(
            Map.entry("int8", INT8), Map.entry("int16", INT16), Map.entry("int32", INT32),
            Map.entry("int64", INT64), Map.entry("uint16", UINT16), Map.entry("uint32", UINT32),
            Map.entry("float64", FLOAT64), Map.entry("bool", BOOL), Map.entry("uuid", UUID),
            Map.entry("string", STRING), Map.entry("bytes", BYTES), Map.entry("records", RECORDS));

    final String javaType;
    final String boxed;
    final int width;

    Kind(String javaType, String boxed, int width) {
        this.javaType = javaType;
        this.boxed = boxed;
        this.width = width;
    }

    /** Whether the Java value is an object (so may be null). */
    boolean isReference() {
        return switch (this) {
            case UUID, STRING, BYTES, RECORDS, STRUCT, ARRAY -> true;
            default -> false;
        };
    }
}
