package io.brook.wire.generator;

/** Java expressions for a field's default value and for comparing a value with it. */
final class Values {
    private Values() {
    }

    /** The field's default, from {@code default=} or the type's zero value. */
    static String defaultExpr(Field f) {
        return literal(f, f.defaultValue);
    }

    /**
     * A schema value literal as Java: {@code null}, a number (decimal or {@code 0x}), {@code true}
     * or {@code false}, a string; empty or absent for the type's zero value (the empty string,
     * empty bytes, an empty array, a struct at its defaults, for records: empty when the text is
     * empty, else empty or null as the field is non-nullable or nullable).
     */
    static String literal(Field f, String d) {
        Type t = f.type;
        if ("null".equals(d)) {
            return "null";
        }
        switch (t.kind) {
            case INT8, INT16, INT32, INT64, UINT16, UINT32 -> {
                String v = d == null || d.isEmpty() ? "0" : d;
                long value = v.startsWith("0x") ? Long.parseLong(v.substring(2), 16)
                        : v.startsWith("-0x") ? -Long.parseLong(v.substring(3), 16) : Long.parseLong(v);
                return switch (t.kind) {
                    case INT8 -> "(byte) " + value;
                    case INT16 -> "(short) " + value;
                    case INT32, UINT16 -> Long.toString(value);
                    default -> value + "L";
                };
            }
            case FLOAT64 -> {
                return d == null || d.isEmpty() ? "0.0" : Double.toString(Double.parseDouble(d));
            }
            case BOOL -> {
                if (d == null || d.isEmpty() || d.equalsIgnoreCase("false")) {
                    return "false";
                }
                if (d.equalsIgnoreCase("true")) {
                    return "true";
                }
                throw new IllegalArgumentException("bad bool default " + d + " for " + f.name);
            }
            case UUID -> {
                if (d != null && !d.isEmpty()) {
                    throw new IllegalArgumentException("uuid defaults are not supported: " + f.name);
                }
                return "MessageUtil.ZERO_UUID";
            }
            case STRING -> {
                return d == null ? "\"\"" : "\"" + d.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
            }
            case BYTES -> {
                return "MessageUtil.EMPTY_BYTES";
            }
            case RECORDS -> {
                return f.nullable.empty() || (d != null && d.isEmpty()) ? "io.brook.wire.protocol.BufferRecords.EMPTY"
                        : "null";
            }
            case ARRAY -> {
                return "new ArrayList<>(0)";
            }
            case STRUCT -> {
                return "new " + t.structName + "()";
            }
            default -> throw new IllegalStateException();
        }
    }

    /** Expression that is true when the field holds something other than its default. */
    static String nonDefault(Field f, String v) {
        String d = f.defaultValue;
        if ("null".equals(d)) {
            return v + " != null";
        }
        return switch (f.type.kind) {
            case INT8, INT16, INT32, INT64, UINT16, UINT32, BOOL -> v + " != " + defaultExpr(f);
            case FLOAT64 -> "Double.compare(" + v + ", " + defaultExpr(f) + ") != 0";
            case UUID -> "!MessageUtil.ZERO_UUID.equals(" + v + ")";
            case STRING -> "!" + defaultExpr(f) + ".equals(" + v + ")";
            case BYTES -> v + " == null || " + v + ".length != 0";
            case RECORDS -> f.nullable.empty() ? v + " == null || " + v + ".sizeInBytes() != 0" : v + " != null";
            case ARRAY -> v + " == null || !" + v + ".isEmpty()";
            case STRUCT -> v + " == null || !" + v + ".isDefault()";
            default -> throw new IllegalStateException();
        };
    }

    /** Expression that is true when the field holds its default; the negation of nonDefault. */
    static String isDefaultValue(Field f, String v) {
        String d = f.defaultValue;
        if ("null".equals(d)) {
            return v + " == null";
        }
        return switch (f.type.kind) {
            case INT8, INT16, INT32, INT64, UINT16, UINT32, BOOL -> v + " == " + defaultExpr(f);
            case FLOAT64 -> "Double.compare(" + v + ", " + defaultExpr(f) + ") == 0";
            case UUID -> "MessageUtil.ZERO_UUID.equals(" + v + ")";
            case STRING -> defaultExpr(f) + ".equals(" + v + ")";
            case BYTES -> "(" + v + " != null && " + v + ".length == 0)";
            case RECORDS -> f.nullable.empty() ? "(" + v + " != null && " + v + ".sizeInBytes() == 0)" : v + " == null";
            case ARRAY -> "(" + v + " != null && " + v + ".isEmpty())";
            case STRUCT -> "(" + v + " != null && " + v + ".isDefault())";
            default -> throw new IllegalStateException();
        };
    }
}
