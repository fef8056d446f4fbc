package io.brook.wire.generator;

/** A field's type: a primitive, a struct, or an array of either. */
final class Type {
    final Kind kind;
    final Type element; // for ARRAY
    final String structName; // for STRUCT

    private Type(Kind kind, Type element, String structName) {
        this.kind = kind;
        this.element = element;
        this.structName = structName;
    }

    static Type parse(String s) {
        if (s.startsWith("[]")) {
            Type e = parse(s.substring(2));
            if (e.kind == Kind.ARRAY || e.kind == Kind.RECORDS) {
                throw new IllegalArgumentException("unsupported array element type " + s);
            }
            return new Type(Kind.ARRAY, e, null);
        }
        Kind k = Kind.PRIMITIVES.get(s);
        if (k != null) {
            return new Type(k, null, null);
        }
        if (!s.matches("[A-Z][A-Za-z0-9]*")) {
            throw new IllegalArgumentException("bad type " + s);
        }
        return new Type(Kind.STRUCT, null, s);
    }

    String java() {
        return switch (kind) {
            case ARRAY -> "List<" + element.boxedJava() + ">";
            case STRUCT -> structName;
            default -> kind.javaType;
        };
    }

    String boxedJava() {
        return kind == Kind.STRUCT ? structName : kind.boxed;
    }

    boolean isStructLike() {
        return kind == Kind.STRUCT || (kind == Kind.ARRAY && element.kind == Kind.STRUCT);
    }

    /** The struct a struct or struct-array field holds. */
    String structOf() {
        return kind == Kind.STRUCT ? structName : element.structName;
    }

    String signature() {
        return kind == Kind.ARRAY ? "[]" + element.signature() : kind == Kind.STRUCT ? structName : kind.name();
    }
}
