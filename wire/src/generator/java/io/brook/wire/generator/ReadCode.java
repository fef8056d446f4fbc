package io.brook.wire.generator;

/**
 * Writes the constructor that decodes a struct from a {@code ProtocolReader}. An array's count is
 * checked against the bytes that remain, at the minimum encoded size of its elements
 * ({@link MinSizes}), before its list is allocated.
 */
final class ReadCode extends Section {
    private final MinSizes minSizes;

    ReadCode(Message m, Code c) {
        super(m, c);
        this.minSizes = new MinSizes(m);
    }

    void readConstructor(Struct s) {
        c.open((s.top ? "private " : "") + s.name + "(ProtocolReader in, short version)");
        boolean anyTagged = s.fields.stream().anyMatch(Field::tagged);
        if (needsFlexibleVariable(s)) {
            c.line("boolean flexible = " + k.flexibleExpr() + ";");
        }
        for (Field f : s.fields) {
            String name = "this." + f.javaName();
            if (f.tagged()) {
                c.line(name + " = " + Values.defaultExpr(f) + ";");
                continue;
            }
            String cond = k.cond(f.versions);
            if (cond.equals("false")) {
                c.line(name + " = " + Values.defaultExpr(f) + ";");
            } else if (cond.equals("true")) {
                readValue(s, f, name);
            } else {
                c.open("if (" + cond + ")");
                readValue(s, f, name);
                c.closeWith("else");
                c.line(name + " = " + Values.defaultExpr(f) + ";");
                c.close();
            }
        }
        if (k.hasFlexible()) {
            readTaggedSection(s, anyTagged);
        }
        c.close();
    }

    private void readTaggedSection(Struct s, boolean anyTagged) {
        String tagId = "\"" + s.path + "._taggedFields\"";
        c.open("if (flexible)");
        if (!anyTagged) {
            c.line("in.skipTaggedFields(" + tagId + ");");
        } else {
            c.line("int taggedCount = in.readTaggedFieldCount(" + tagId + ");");
            c.open("for (int t = 0; t < taggedCount; t++)");
            c.line("int tag = in.readUnsignedVarint(" + tagId + ");");
            c.line("int tagSize = in.readTaggedFieldSize(" + tagId + ");");
            c.open("switch (tag)");
            for (Field f : taggedSorted(s)) {
                c.open("case " + f.tag + ":");
                c.open("if (" + k.taggedCond(f) + ")");
                c.line("int end = in.position() + tagSize;");
                readValue(s, f, "this." + f.javaName());
                c.line("MessageUtil.endTaggedField(in, " + fieldId(s, f) + ", end);");
                c.closeWith("else");
                c.line("in.skip(" + tagId + ", tagSize);");
                c.close();
                c.line("break;");
                c.close();
            }
            c.open("default:");
            c.line("in.skip(" + tagId + ", tagSize);");
            c.line("break;");
            c.close();
            c.close();
            c.close();
        }
        c.close();
    }

    /** Emits statements that read field f (its version already checked) into target. */
    private void readValue(Struct s, Field f, String target) {
        String id = fieldId(s, f);
        String nullable = k.nullCond(f);
        String compact = f.tagged() ? "true" : k.compactExpr();
        Type t = f.type;
        switch (t.kind) {
            case ARRAY -> {
                String n = "n" + capitalize(f.javaName());
                String minElement = minSizes.elementExpr(t.element, f.tagged() ? k.taggedVersions(f) : f.versions);
                c.line("int " + n + " = in.readArrayLength(" + id + ", " + compact + ", " + nullable + ", " + minElement + ");");
                String elemRead = elementRead(t.element, id);
                if (nullable.equals("false")) {
                    arrayReadLoop(t, n, elemRead, target);
                } else {
                    c.open("if (" + n + " < 0)");
                    c.line(target + " = null;");
                    c.closeWith("else");
                    arrayReadLoop(t, n, elemRead, target);
                    c.close();
                }
            }
            case STRUCT -> {
                if (nullable.equals("false")) {
                    c.line(target + " = new " + t.structName + "(in, version);");
                } else if (nullable.equals("true")) {
                    c.line(target + " = in.readStructMarker(" + id + ", true) ? new " + t.structName + "(in, version) : null;");
                } else {
                    c.line(target + " = !(" + nullable + ") || in.readStructMarker(" + id + ", true) ? new "
                            + t.structName + "(in, version) : null;");
                }
            }
            case STRING -> c.line(target + " = in.readString(" + id + ", " + compact + ", " + nullable + ");");
            case BYTES -> c.line(target + " = in.readBytes(" + id + ", " + compact + ", " + nullable + ");");
            case RECORDS -> c.line(target + " = in.readRecords(" + id + ", " + compact + ", " + nullable + ");");
            default -> c.line(target + " = " + elementRead(t, id) + ";");
        }
    }

    private void arrayReadLoop(Type t, String n, String elemRead, String target) {
        String list = "list" + capitalize(n.substring(1));
        c.line("List<" + t.element.boxedJava() + "> " + list + " = new ArrayList<>(" + n + ");");
        c.open("for (int i = 0; i < " + n + "; i++)");
        c.line(list + ".add(" + elemRead + ");");
        c.close();
        c.line(target + " = " + list + ";");
    }

    private String elementRead(Type t, String id) {
        return switch (t.kind) {
            case INT8 -> "in.readInt8(" + id + ")";
            case INT16 -> "in.readInt16(" + id + ")";
            case INT32 -> "in.readInt32(" + id + ")";
            case INT64 -> "in.readInt64(" + id + ")";
            case UINT16 -> "in.readUint16(" + id + ")";
            case UINT32 -> "in.readUint32(" + id + ")";
            case FLOAT64 -> "in.readFloat64(" + id + ")";
            case BOOL -> "in.readBoolean(" + id + ")";
            case UUID -> "in.readUuid(" + id + ")";
            case STRING -> "in.readString(" + id + ", " + k.compactExpr() + ", false)";
            case BYTES -> "in.readBytes(" + id + ", " + k.compactExpr() + ", false)";
            case STRUCT -> "new " + t.structName + "(in, version)";
            default -> throw new IllegalStateException(t.kind.name());
        };
    }
}
