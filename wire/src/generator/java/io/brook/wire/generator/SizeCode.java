package io.brook.wire.generator;

import java.util.List;

/** Writes {@code size(short version)}: the exact encoded size of a struct. */
final class SizeCode extends Section {

    SizeCode(Message m, Code c) {
        super(m, c);
    }

    void sizeMethod(Struct s) {
        c.line(s.top ? "@Override" : "/** Encoded size at {@code version}. */");
        c.open("public int size(short version)");
        if (s.top) {
            c.line("MessageUtil.checkVersion(\"" + m.name + "\", version, LOWEST_VERSION, HIGHEST_VERSION);");
        }
        if (needsFlexibleVariable(s)) {
            c.line("boolean flexible = " + k.flexibleExpr() + ";");
        }
        c.line("int size = 0;");
        for (Field f : s.fields) {
            if (f.tagged()) {
                continue;
            }
            String cond = k.cond(f.versions);
            if (cond.equals("false")) {
                continue;
            }
            if (!cond.equals("true")) {
                c.open("if (" + cond + ")");
            }
            sizeValue(f, "size", k.compactExpr());
            if (!cond.equals("true")) {
                c.close();
            }
        }
        if (k.hasFlexible()) {
            List<Field> tagged = taggedSorted(s);
            c.open("if (flexible)");
            if (tagged.isEmpty()) {
                c.line("size += 1; // empty tagged-field section");
            } else {
                c.line("int taggedCount = 0;");
                for (Field f : tagged) {
                    String cond = Conditions.and(k.taggedCond(f), Values.nonDefault(f, "this." + f.javaName()));
                    if (cond.equals("false")) {
                        continue;
                    }
                    c.open("if (" + cond + ")");
                    c.line("taggedCount++;");
                    c.line("int tagSize = 0;");
                    sizeValue(f, "tagSize", "true");
                    c.line("size += Varints.sizeOfUnsignedVarint(" + f.tag + ") + Varints.sizeOfUnsignedVarint(tagSize) + tagSize;");
                    c.close();
                }
                c.line("size += Varints.sizeOfUnsignedVarint(taggedCount);");
            }
            c.close();
        }
        c.line("return size;");
        c.close();
    }

    /** Emits statements that add the encoded size of field f to the variable {@code acc}. */
    void sizeValue(Field f, String acc, String compact) {
        String v = "this." + f.javaName();
        Type t = f.type;
        switch (t.kind) {
            case STRING -> c.line(acc + " += MessageUtil.sizeOfString(" + v + ", " + compact + ");");
            case BYTES -> c.line(acc + " += MessageUtil.sizeOfBytes(" + v + ", " + compact + ");");
            case RECORDS -> c.line(acc + " += MessageUtil.sizeOfRecords(" + v + ", " + compact + ");");
            case STRUCT -> {
                String nullable = k.nullCond(f);
                if (nullable.equals("false")) {
                    // null is rejected by write(); size() must not fail first
                    c.line(acc + " += " + v + " == null ? 0 : " + v + ".size(version);");
                } else {
                    String marker = nullable.equals("true") ? "1" : "(" + nullable + " ? 1 : 0)";
                    c.line(acc + " += " + marker + " + (" + v + " == null ? 0 : " + v + ".size(version));");
                }
            }
            case ARRAY -> {
                c.line(acc + " += MessageUtil.sizeOfArrayLength(" + v + ", " + compact + ");");
                Type e = t.element;
                c.open("if (" + v + " != null)");
                if (e.kind.width > 0) {
                    c.line(acc + " += " + v + ".size() * " + e.kind.width + ";");
                } else {
                    c.open("for (" + e.boxedJava() + " element : " + v + ")");
                    switch (e.kind) {
                        case STRING -> c.line(acc + " += MessageUtil.sizeOfString(element, " + compact + ");");
                        case BYTES -> c.line(acc + " += MessageUtil.sizeOfBytes(element, " + compact + ");");
                        case STRUCT -> c.line(acc + " += element.size(version);");
                        default -> throw new IllegalStateException();
                    }
                    c.close();
                }
                c.close();
            }
            default -> c.line(acc + " += " + t.kind.width + ";");
        }
    }
}
