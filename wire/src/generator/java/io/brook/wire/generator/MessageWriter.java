package io.brook.wire.generator;

/**
 * Writes the Java class of one message: fields, constructors, {@code read}, {@code size},
 * {@code write}, accessors, {@code equals}/{@code hashCode}/{@code toString}, and one nested
 * class per struct.
 */
final class MessageWriter extends Section {
    private final ReadCode read;
    private final SizeCode size;
    private final WriteCode write;
    private final MinSizes minSizes;
    private final ErrorCountWriter errors;
    /** For a request: its response, which {@code errorResponse} builds. */
    private final Message response;

    MessageWriter(Message m, Message response) {
        super(m, new Code());
        this.read = new ReadCode(m, c);
        this.size = new SizeCode(m, c);
        this.write = new WriteCode(m, c);
        this.minSizes = new MinSizes(m);
        this.errors = new ErrorCountWriter(m, c);
        this.response = response;
    }

    String generate() {
        c.line("// Generated from wire/src/main/schema/" + m.name + ".schema by the generator in wire/src/generator.");
        c.line("// Do not edit: change the schema and rebuild.");
        c.line("package " + Generator.PACKAGE + ";");
        c.line("");
        c.line("import io.brook.wire.protocol.ApiKey;");
        c.line("import io.brook.wire.protocol.ApiMessage;");
        if (!m.isRequest()) {
            c.line("import io.brook.wire.protocol.ErrorCounter;");
        }
        if (m.isRequest()) {
            c.line("import io.brook.wire.protocol.ApiRequest;");
            c.line("import io.brook.wire.protocol.Errors;");
        }
        c.line("import io.brook.wire.protocol.ProtocolDecodeException;");
        c.line("import io.brook.wire.protocol.ProtocolReader;");
        c.line("import io.brook.wire.protocol.ProtocolWriter;");
        c.line("import io.brook.wire.protocol.Records;");
        c.line("import io.brook.wire.protocol.Varints;");
        c.line("import java.nio.ByteBuffer;");
        c.line("import java.util.ArrayList;");
        c.line("import java.util.Arrays;");
        c.line("import java.util.List;");
        c.line("import java.util.Objects;");
        c.line("import java.util.UUID;");
        c.line("");
        c.line("/** " + m.apiName() + " " + (m.isRequest() ? "request" : "response") + " body (API key " + m.apiKey
                + "), versions " + m.valid.lo() + "-" + m.valid.hi() + ". */");
        c.open("public final class " + m.name + " implements " + (m.isRequest() ? "ApiRequest" : "ApiMessage"));
        c.line("public static final short LOWEST_VERSION = " + m.valid.lo() + ";");
        c.line("public static final short HIGHEST_VERSION = " + m.valid.hi() + ";");
        c.line("/** First version with compact types and tagged fields; -1 when there is none. */");
        c.line("public static final short FIRST_FLEXIBLE_VERSION = " + (m.flexible.empty() ? -1 : m.flexible.lo()) + ";");
        c.line("");
        body(m.top());
        for (Struct s : m.structs.values()) {
            c.line("");
            c.line("/** Struct " + s.name + " of " + m.name + ". */");
            c.open("public static final class " + s.name);
            body(s);
            c.close();
        }
        c.close();
        return c.toString();
    }

    private void body(Struct s) {
        for (Field f : s.fields) {
            c.line("private " + f.type.java() + " " + f.javaName() + ";");
        }
        if (!s.fields.isEmpty()) {
            c.line("");
        }
        c.line("/** Every field at its default. */");
        c.open("public " + s.name + "()");
        for (Field f : s.fields) {
            c.line("this." + f.javaName() + " = " + Values.defaultExpr(f) + ";");
        }
        c.close();
        c.line("");
        read.readConstructor(s);
        if (s.top) {
            c.line("");
            c.line("/** Reads a body of {@code version} from the buffer's position, advancing it. */");
            c.open("public static " + s.name + " read(ByteBuffer buf, short version)");
            c.line("return read(new ProtocolReader(buf), version);");
            c.close();
            c.line("");
            c.line("/** Reads a body of {@code version} with {@code reader} (which may bound the heap it decodes to). */");
            c.open("public static " + s.name + " read(ProtocolReader reader, short version)");
            c.open("if (version < LOWEST_VERSION || version > HIGHEST_VERSION)");
            c.line("throw new ProtocolDecodeException(\"" + m.name + ": unsupported version \" + version);");
            c.close();
            c.line("return new " + s.name + "(reader, version);");
            c.close();
            c.line("");
            c.line("@Override");
            c.open("public ApiKey apiKey()");
            c.line("return ApiKey." + m.apiKeyConstant() + ";");
            c.close();
            if (!m.isRequest() && s.fields.stream().anyMatch(f -> f.name.equals("ThrottleTimeMs") && f.type.kind == Kind.INT32)) {
                c.line("");
                c.line("@Override");
                c.open("public boolean raiseThrottleTimeMs(int ms)");
                c.open("if (ms > this.throttleTimeMs)");
                c.line("this.throttleTimeMs = ms;");
                c.close();
                c.line("return true;");
                c.close();
                c.line("");
                c.line("@Override");
                c.open("public boolean lowerThrottleTimeMs(int ms)");
                c.line("this.throttleTimeMs = Math.max(0, this.throttleTimeMs - ms);");
                c.line("return true;");
                c.close();
            }
            if (m.isRequest()) {
                c.line("");
                new ErrorResponseWriter(m, response, c).write();
            }
        }
        c.line("");
        size.sizeMethod(s);
        c.line("");
        write.writeMethod(s);
        if (!m.isRequest() && (s.top || errors.hasErrors(s))) {
            c.line("");
            errors.countMethod(s);
        }
        if (!s.top) {
            c.line("");
            isDefaultMethod(s);
            c.line("");
            minSizes.minSizeMethod(s, c);
        }
        for (Field f : s.fields) {
            c.line("");
            c.open("public " + f.type.java() + " " + f.javaName() + "()");
            c.line("return " + f.javaName() + ";");
            c.close();
            c.line("");
            c.open("public " + s.name + " " + f.javaName() + "(" + f.type.java() + " value)");
            c.line("this." + f.javaName() + " = " + (f.isErrorMessage() ? "MessageUtil.fitErrorMessage(value)" : "value")
                    + ";");
            c.line("return this;");
            c.close();
        }
        c.line("");
        equalsHashToString(s);
    }

    private void isDefaultMethod(Struct s) {
        c.line("/** True when every field holds its default (such a struct is omitted from tagged sections). */");
        c.open("boolean isDefault()");
        if (s.fields.isEmpty()) {
            c.line("return true;");
        } else {
            StringBuilder sb = new StringBuilder("return ");
            for (int i = 0; i < s.fields.size(); i++) {
                if (i > 0) {
                    sb.append("\n").append("    ".repeat(c.indent + 2)).append("&& ");
                }
                sb.append(Values.isDefaultValue(s.fields.get(i), "this." + s.fields.get(i).javaName()));
            }
            c.line(sb.append(";").toString());
        }
        c.close();
    }

    private void equalsHashToString(Struct s) {
        c.line("@Override");
        c.open("public boolean equals(Object o)");
        c.open("if (this == o)");
        c.line("return true;");
        c.close();
        c.open("if (!(o instanceof " + s.name + " other))");
        c.line("return false;");
        c.close();
        for (Field f : s.fields) {
            String a = "this." + f.javaName();
            String b = "other." + f.javaName();
            String differ = switch (f.type.kind) {
                case INT8, INT16, INT32, INT64, UINT16, UINT32, BOOL -> a + " != " + b;
                case FLOAT64 -> "Double.compare(" + a + ", " + b + ") != 0";
                case BYTES -> "!Arrays.equals(" + a + ", " + b + ")";
                default -> "!Objects.equals(" + a + ", " + b + ")";
            };
            c.open("if (" + differ + ")");
            c.line("return false;");
            c.close();
        }
        c.line("return true;");
        c.close();
        c.line("");
        c.line("@Override");
        c.open("public int hashCode()");
        c.line("int h = 0;");
        for (Field f : s.fields) {
            String a = "this." + f.javaName();
            String hash = switch (f.type.kind) {
                case INT8 -> "Byte.hashCode(" + a + ")";
                case INT16 -> "Short.hashCode(" + a + ")";
                case INT32, UINT16 -> "Integer.hashCode(" + a + ")";
                case INT64, UINT32 -> "Long.hashCode(" + a + ")";
                case FLOAT64 -> "Double.hashCode(" + a + ")";
                case BOOL -> "Boolean.hashCode(" + a + ")";
                case BYTES -> "Arrays.hashCode(" + a + ")";
                default -> "Objects.hashCode(" + a + ")";
            };
            c.line("h = 31 * h + " + hash + ";");
        }
        c.line("return h;");
        c.close();
        c.line("");
        c.line("@Override");
        c.open("public String toString()");
        if (s.fields.isEmpty()) {
            c.line("return \"" + s.name + "()\";");
        } else {
            c.line("return \"" + s.name + "(\"");
            for (int i = 0; i < s.fields.size(); i++) {
                Field f = s.fields.get(i);
                String a = "this." + f.javaName();
                String val = switch (f.type.kind) {
                    case BYTES -> "Arrays.toString(" + a + ")";
                    case STRING -> "(" + a + " == null ? \"null\" : \"'\" + " + a + " + \"'\")";
                    default -> a;
                };
                c.line("        + \"" + (i > 0 ? ", " : "") + f.javaName() + "=\" + " + val);
            }
            c.line("        + \")\";");
        }
        c.close();
    }
}
