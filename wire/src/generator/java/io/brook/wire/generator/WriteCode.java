package io.brook.wire.generator;

import java.util.List;

/** Writes {@code write(ProtocolWriter out, short version)} of a struct. */
final class WriteCode extends Section {
    private final SizeCode size;

    WriteCode(Message m, Code c) {
        super(m, c);
        this.size = new SizeCode(m, c);
    }

    void writeMethod(Struct s) {
        c.line(s.top ? "@Override" : "/** Writes this struct at {@code version}. */");
        c.open("public void write(ProtocolWriter out, short version)");
        if (s.top) {
            c.line("MessageUtil.checkVersion(\"" + m.name + "\", version, LOWEST_VERSION, HIGHEST_VERSION);");
        }
        if (needsFlexibleVariable(s)) {
            c.line("boolean flexible = " + k.flexibleExpr() + ";");
        }
        for (Field f : s.fields) {
            if (f.tagged()) {
                continue;
            }
            String cond = k.cond(f.versions);
            if (cond.equals("true")) {
                writeValue(s, f, k.compactExpr());
            } else if (cond.equals("false")) {
                notWritable(s, f);
            } else if (f.ignorable) {
                c.open("if (" + cond + ")");
                writeValue(s, f, k.compactExpr());
                c.close();
            } else {
                c.open("if (" + cond + ")");
                writeValue(s, f, k.compactExpr());
                c.closeWith("else");
                notWritable(s, f);
                c.close();
            }
        }
        if (k.hasFlexible()) {
            writeTaggedSection(s);
        }
        // tagged fields that this version cannot carry
        for (Field f : taggedSorted(s)) {
            if (f.ignorable) {
                continue;
            }
            String notIn = Conditions.not(k.taggedCond(f));
            if (notIn.equals("false")) {
                continue;
            }
            c.open("if (" + Conditions.and(notIn, nonDefault(f)) + ")");
            c.line("throw MessageUtil.cannotWrite(" + fieldId(s, f) + ", version);");
            c.close();
        }
        c.close();
    }

    private void writeTaggedSection(Struct s) {
        List<Field> tagged = taggedSorted(s);
        c.open("if (flexible)");
        if (tagged.isEmpty()) {
            c.line("out.writeUnsignedVarint(0);");
        } else {
            c.line("int taggedCount = 0;");
            for (Field f : tagged) {
                String cond = Conditions.and(k.taggedCond(f), nonDefault(f));
                if (!cond.equals("false")) {
                    c.open("if (" + cond + ")");
                    c.line("taggedCount++;");
                    c.close();
                }
            }
            c.line("out.writeUnsignedVarint(taggedCount);");
            for (Field f : tagged) {
                String cond = Conditions.and(k.taggedCond(f), nonDefault(f));
                if (cond.equals("false")) {
                    continue;
                }
                c.open("if (" + cond + ")");
                c.line("out.writeUnsignedVarint(" + f.tag + ");");
                c.line("int tagSize = 0;");
                size.sizeValue(f, "tagSize", "true");
                c.line("out.writeUnsignedVarint(tagSize);");
                writeValue(s, f, "true");
                c.close();
            }
        }
        c.close();
    }

    private static String nonDefault(Field f) {
        return Values.nonDefault(f, "this." + f.javaName());
    }

    private void notWritable(Struct s, Field f) {
        if (f.ignorable) {
            return; // dropped silently when the version lacks it
        }
        c.open("if (" + nonDefault(f) + ")");
        c.line("throw MessageUtil.cannotWrite(" + fieldId(s, f) + ", version);");
        c.close();
    }

    private void writeValue(Struct s, Field f, String compact) {
        String v = "this." + f.javaName();
        String id = fieldId(s, f);
        String nullable = k.nullCond(f);
        Type t = f.type;
        switch (t.kind) {
            case STRING -> c.line("MessageUtil.writeString(out, " + id + ", " + v + ", " + compact + ", " + nullable + ", version);");
            case BYTES -> c.line("MessageUtil.writeBytes(out, " + id + ", " + v + ", " + compact + ", " + nullable + ", version);");
            case RECORDS -> c.line("MessageUtil.writeRecords(out, " + id + ", " + v + ", " + compact + ", " + nullable + ", version);");
            case STRUCT -> writeStruct(f, v, id, nullable);
            case ARRAY -> {
                c.line("MessageUtil.writeArrayLength(out, " + id + ", " + v + ", " + compact + ", " + nullable + ", version);");
                c.open("if (" + v + " != null)");
                Type e = t.element;
                c.open("for (" + e.boxedJava() + " element : " + v + ")");
                switch (e.kind) {
                    case STRING -> c.line("MessageUtil.writeString(out, " + id + ", element, " + compact + ", false, version);");
                    case BYTES -> c.line("MessageUtil.writeBytes(out, " + id + ", element, " + compact + ", false, version);");
                    case STRUCT -> c.line("element.write(out, version);");
                    default -> c.line(primitiveWrite(e.kind, "element") + ";");
                }
                c.close();
                c.close();
            }
            default -> c.line(primitiveWrite(t.kind, v) + ";");
        }
    }

    private void writeStruct(Field f, String v, String id, String nullable) {
        if (nullable.equals("false")) {
            c.line("MessageUtil.checkNotNull(" + id + ", " + v + ", version);");
            c.line(v + ".write(out, version);");
            return;
        }
        c.open("if (" + v + " == null)");
        if (!nullable.equals("true")) {
            c.line("if (!(" + nullable + ")) throw MessageUtil.nullNotAllowed(" + id + ", version);");
        }
        c.line("out.writeByte((byte) -1);");
        c.closeWith("else");
        if (!nullable.equals("true")) {
            c.line("if (" + nullable + ") out.writeByte((byte) 1);");
        } else {
            c.line("out.writeByte((byte) 1);");
        }
        c.line(v + ".write(out, version);");
        c.close();
    }

    private static String primitiveWrite(Kind k, String v) {
        return switch (k) {
            case INT8 -> "out.writeByte(" + v + ")";
            case INT16 -> "out.writeShort(" + v + ")";
            case INT32 -> "out.writeInt(" + v + ")";
            case INT64 -> "out.writeLong(" + v + ")";
            case UINT16 -> "out.writeShort((short) (int) " + v + ")";
            case UINT32 -> "out.writeInt((int) (long) " + v + ")";
            case FLOAT64 -> "out.writeDouble(" + v + ")";
            case BOOL -> "out.writeBoolean(" + v + ")";
            case UUID -> "out.writeUuid(" + v + ")";
            default -> throw new IllegalStateException(k.name());
        };
    }
}
