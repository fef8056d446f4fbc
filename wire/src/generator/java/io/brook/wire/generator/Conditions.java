package io.brook.wire.generator;

/**
 * Java conditions on the {@code version} variable of generated code, simplified against the
 * message's valid range: "true", "false" or an expression.
 */
final class Conditions {
    private final Message m;

    Conditions(Message m) {
        this.m = m;
    }

    /** A version condition relative to the message's valid range. */
    String cond(Versions v) {
        return cond(v, m.valid);
    }

    /** A version condition for code that only runs at versions of {@code context}. */
    String cond(Versions v, Versions context) {
        Versions in = v.intersect(context);
        if (in.empty()) {
            return "false";
        }
        boolean lo = in.lo() <= context.lo();
        boolean hi = in.hi() >= context.hi();
        if (lo && hi) {
            return "true";
        }
        if (lo) {
            return "version <= " + in.hi();
        }
        if (hi) {
            return "version >= " + in.lo();
        }
        return in.lo() == in.hi() ? "version == " + in.lo() : "version >= " + in.lo() + " && version <= " + in.hi();
    }

    /** Nullability of a field, simplified within the versions where the field exists at all. */
    String nullCond(Field f) {
        return nullCond(f, m.valid);
    }

    /** Nullability of a field for code that only runs at versions of {@code context}. */
    String nullCond(Field f, Versions context) {
        Versions present = f.versions.intersect(context);
        Versions nullable = f.nullable.intersect(present);
        if (nullable.empty()) {
            return "false";
        }
        if (nullable.equals(present)) {
            return "true";
        }
        return cond(f.nullable, context);
    }

    String flexibleExpr() {
        return cond(m.flexible);
    }

    boolean hasFlexible() {
        return !cond(m.flexible).equals("false");
    }

    /** The compactness argument of a non-tagged field: "flexible" or "false". */
    String compactExpr() {
        return hasFlexible() ? "flexible" : "false";
    }

    /** The version condition under which a tagged field can be carried. */
    String taggedCond(Field f) {
        return cond(taggedVersions(f));
    }

    /** The versions in which a tagged field can be carried. */
    Versions taggedVersions(Field f) {
        return f.versions.intersect(f.taggedVersions).intersect(m.flexible);
    }

    static String and(String a, String b) {
        if (a.equals("false") || b.equals("false")) {
            return "false";
        }
        if (a.equals("true")) {
            return b;
        }
        if (b.equals("true")) {
            return a;
        }
        return paren(a) + " && " + paren(b);
    }

    static String paren(String expr) {
        return expr.contains(" ") && !(expr.startsWith("(") && expr.endsWith(")")) ? "(" + expr + ")" : expr;
    }

    static String not(String expr) {
        return expr.equals("true") ? "false" : expr.equals("false") ? "true" : "!" + paren(expr);
    }
}
