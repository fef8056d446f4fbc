package io.brook.wire.generator;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntUnaryOperator;

/**
 * The fewest bytes an array element can take on the wire at a version, as a Java expression on
 * {@code version}. The generated readers check an array's count against it before allocating
 * anything for the array: {@code count x minimum <= remaining bytes}, so a list is never sized
 * beyond what the bytes actually present can fill (see docs/protocol.md, "Bounded decoding").
 *
 * <p>The minimum of a value: its fixed width for numbers, booleans and uuids; the empty (or null)
 * form for strings, bytes, records and arrays (one byte compact, else their classic int16/int32
 * prefix); for a struct, the sum of its fields that exist at the version (a tagged field takes
 * nothing, the tagged-field section one byte in flexible versions), or one byte (the null marker)
 * where the struct is nullable. Never below one: an element must consume input to exist, which is
 * Kafka's own rule (a count above the remaining bytes is rejected); {@code ProtocolReader} applies
 * that floor.
 */
final class MinSizes {
    private final Message m;

    MinSizes(Message m) {
        this.m = m;
    }

    /**
     * The minimum size of one element of {@code element} for an array field present in
     * {@code versions}: a literal, a ternary on {@code version}, or the element struct's
     * {@code minSize(version)}.
     */
    String elementExpr(Type element, Versions versions) {
        if (element.kind == Kind.STRUCT) {
            return element.structName + ".minSize(version)";
        }
        return byVersion(versions.intersect(m.valid), v -> value(element, v));
    }

    /** Writes a struct's {@code static int minSize(short version)}, tested against {@code size()} of minimal values. */
    void minSizeMethod(Struct s, Code c) {
        c.line("/** The fewest bytes this struct takes at {@code version}; array counts are checked against it. */");
        c.open("static int minSize(short version)");
        c.line("return " + byVersion(m.valid, v -> struct(s, v)) + ";");
        c.close();
    }

    /** An expression for {@code sizeAt(version)} over the versions of {@code range}. */
    private static String byVersion(Versions range, IntUnaryOperator sizeAt) {
        List<int[]> runs = new ArrayList<>(); // {lo, hi, size}
        for (int v = range.lo(); v <= range.hi(); v++) {
            int size = sizeAt.applyAsInt(v);
            int[] last = runs.isEmpty() ? null : runs.get(runs.size() - 1);
            if (last != null && last[2] == size) {
                last[1] = v;
            } else {
                runs.add(new int[] {v, v, size});
            }
        }
        if (runs.isEmpty()) {
            return "1";
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < runs.size() - 1; i++) {
            sb.append("version <= ").append(runs.get(i)[1]).append(" ? ").append(runs.get(i)[2]).append(" : ");
        }
        sb.append(runs.get(runs.size() - 1)[2]);
        return runs.size() == 1 ? sb.toString() : "(" + sb + ")";
    }

    private boolean flexible(int v) {
        return v >= m.flexible.lo() && v <= m.flexible.hi();
    }

    private static boolean contains(Versions vs, int v) {
        return v >= vs.lo() && v <= vs.hi();
    }

    private int struct(Struct s, int v) {
        int size = 0;
        for (Field f : s.fields) {
            if (f.tagged() || !contains(f.versions, v)) {
                continue;
            }
            if (f.type.kind == Kind.STRUCT) {
                size += contains(f.nullable, v) ? 1 : struct(m.structs.get(f.type.structName), v);
            } else {
                size += value(f.type, v);
            }
        }
        return flexible(v) ? size + 1 : size;
    }

    private int value(Type t, int v) {
        boolean compact = flexible(v);
        return switch (t.kind) {
            case STRING -> compact ? 1 : 2;
            case BYTES, RECORDS, ARRAY -> compact ? 1 : 4;
            case STRUCT -> throw new IllegalStateException("structs are sized by struct()");
            default -> t.kind.width;
        };
    }
}
