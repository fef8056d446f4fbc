import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Turns the message schemas of wire/src/main/schema into the Java classes of package
 * io.brook.wire.message. Run at generate-sources time as a single-file program:
 *
 * <pre>java Generator.java &lt;schema dir&gt; &lt;output source root&gt;</pre>
 *
 * The schema format is described in wire/src/main/schema/README.md. The generated code reads and
 * writes through io.brook.wire.protocol.ProtocolReader/ProtocolWriter and the package-private
 * helpers of io.brook.wire.message.MessageUtil.
 */
public final class Generator {

    static final String PACKAGE = "io.brook.wire.message";
    static final int MAX_VERSION = Short.MAX_VALUE;

    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: java Generator.java <schema dir> <output source root>");
            System.exit(2);
        }
        Path in = Path.of(args[0]);
        Path out = Path.of(args[1]).resolve(PACKAGE.replace('.', '/'));
        Files.createDirectories(out);
        List<Message> messages = new ArrayList<>();
        try (Stream<Path> files = Files.list(in)) {
            for (Path p : files.filter(p -> p.toString().endsWith(".schema")).sorted().toList()) {
                messages.add(Parser.parse(p));
            }
        }
        for (Message m : messages) {
            write(out.resolve(m.name + ".java"), new MessageWriter(m).generate());
        }
        write(out.resolve("ApiMessages.java"), registry(messages));
        System.out.println("Generated " + messages.size() + " message classes into " + out);
    }

    static void write(Path path, String content) throws IOException {
        byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
        if (Files.exists(path) && java.util.Arrays.equals(Files.readAllBytes(path), bytes)) {
            return; // keep timestamps stable so incremental compilation has nothing to do
        }
        Files.write(path, bytes);
    }

    // ------------------------------------------------------------------------------------------
    // model

    record Versions(int lo, int hi) {
        static final Versions NONE = new Versions(1, 0);

        static Versions parse(String s) {
            if (s.startsWith("v")) {
                s = s.substring(1);
            }
            if (s.equals("none")) {
                return NONE;
            }
            if (s.endsWith("+")) {
                return new Versions(Integer.parseInt(s.substring(0, s.length() - 1)), MAX_VERSION);
            }
            int dash = s.indexOf('-');
            if (dash < 0) {
                int v = Integer.parseInt(s);
                return new Versions(v, v);
            }
            return new Versions(Integer.parseInt(s.substring(0, dash)), Integer.parseInt(s.substring(dash + 1)));
        }

        boolean empty() {
            return lo > hi;
        }

        Versions intersect(Versions o) {
            return new Versions(Math.max(lo, o.lo), Math.min(hi, o.hi));
        }
    }

    enum Kind {
        INT8("byte", "Byte", 1), INT16("short", "Short", 2), INT32("int", "Integer", 4), INT64("long", "Long", 8),
        UINT16("int", "Integer", 2), UINT32("long", "Long", 4), FLOAT64("double", "Double", 8),
        BOOL("boolean", "Boolean", 1), UUID("UUID", "UUID", 16), STRING("String", "String", -1),
        BYTES("byte[]", "byte[]", -1), RECORDS("Records", "Records", -1), STRUCT(null, null, -1),
        ARRAY(null, null, -1);

        final String javaType;
        final String boxed;
        final int width;

        Kind(String javaType, String boxed, int width) {
            this.javaType = javaType;
            this.boxed = boxed;
            this.width = width;
        }
    }

    static final Map<String, Kind> PRIMITIVES = Map.ofEntries(
            Map.entry("int8", Kind.INT8), Map.entry("int16", Kind.INT16), Map.entry("int32", Kind.INT32),
            Map.entry("int64", Kind.INT64), Map.entry("uint16", Kind.UINT16), Map.entry("uint32", Kind.UINT32),
            Map.entry("float64", Kind.FLOAT64), Map.entry("bool", Kind.BOOL), Map.entry("uuid", Kind.UUID),
            Map.entry("string", Kind.STRING), Map.entry("bytes", Kind.BYTES), Map.entry("records", Kind.RECORDS));

    static final class Type {
        final Kind kind;
        final Type element; // for ARRAY
        final String structName; // for STRUCT

        Type(Kind kind, Type element, String structName) {
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
            Kind k = PRIMITIVES.get(s);
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

        String signature() {
            return kind == Kind.ARRAY ? "[]" + element.signature() : kind == Kind.STRUCT ? structName : kind.name();
        }
    }

    static final class Field {
        String name;
        Type type;
        Versions versions;
        Versions nullable = Versions.NONE;
        int tag = -1;
        Versions taggedVersions = Versions.NONE;
        boolean ignorable;
        String defaultValue; // raw text, null if unspecified
        final List<Field> children = new ArrayList<>();

        String javaName() {
            String n = Character.toLowerCase(name.charAt(0)) + name.substring(1);
            return JAVA_KEYWORDS.contains(n) ? n + "_" : n;
        }

        boolean tagged() {
            return tag >= 0;
        }

        String signature() {
            StringBuilder sb = new StringBuilder(name).append(':').append(type.signature()).append(versions)
                    .append(nullable).append(tag).append(ignorable).append(defaultValue).append('{');
            for (Field c : children) {
                sb.append(c.signature()).append(';');
            }
            return sb.append('}').toString();
        }
    }

    static final Set<String> JAVA_KEYWORDS = Set.of("abstract", "assert", "boolean", "break", "byte", "case",
            "catch", "char", "class", "const", "continue", "default", "do", "double", "else", "enum", "extends",
            "final", "finally", "float", "for", "goto", "if", "implements", "import", "instanceof", "int",
            "interface", "long", "native", "new", "package", "private", "protected", "public", "return", "short",
            "static", "strictfp", "super", "switch", "synchronized", "this", "throw", "throws", "transient", "try",
            "void", "volatile", "while", "true", "false", "null", "var", "record", "yield");

    /** Names the generated code uses itself; a struct may not take them. */
    static final Set<String> RESERVED_TYPE_NAMES = Set.of("List", "ArrayList", "UUID", "Objects", "Arrays",
            "ByteBuffer", "Records", "ApiKey", "ApiMessage", "ProtocolReader", "ProtocolWriter", "MessageUtil",
            "Varints", "Utf8", "ProtocolDecodeException", "String", "Integer", "Long", "Short", "Byte", "Double",
            "Boolean", "Object");

    static final class Struct {
        final String name;
        final String path; // "ProduceRequest" or "ProduceRequest.TopicProduceData"
        final List<Field> fields;
        final boolean top;

        Struct(String name, String path, List<Field> fields, boolean top) {
            this.name = name;
            this.path = path;
            this.fields = fields;
            this.top = top;
        }
    }

    static final class Message {
        String name;
        int apiKey;
        Versions valid;
        Versions flexible;
        final List<Field> fields = new ArrayList<>();
        final Map<String, Struct> structs = new LinkedHashMap<>();

        boolean isRequest() {
            return name.endsWith("Request");
        }

        String apiName() {
            return name.substring(0, name.length() - (isRequest() ? "Request".length() : "Response".length()));
        }

        String apiKeyConstant() {
            return apiName().replaceAll("([a-z0-9])([A-Z])", "$1_$2").toUpperCase(Locale.ROOT);
        }
    }

    // ------------------------------------------------------------------------------------------
    // parsing

    static final class Parser {
        static final Pattern HEADER = Pattern.compile("## (\\w+) key=(\\d+) valid=(\\S+) flex=(\\S+)");
        static final Pattern FIELD = Pattern.compile("( *)- (\\w+): (\\S+) (v\\S+)(?: \\((.*)\\))?");
        static final Pattern STRUCT_MARK = Pattern.compile(" *\\(struct \\w+\\)");

        static Message parse(Path path) throws IOException {
            List<String> lines = Files.readAllLines(path, StandardCharsets.UTF_8);
            Message m = new Message();
            Matcher h = HEADER.matcher(lines.get(0));
            if (!h.matches()) {
                throw new IllegalArgumentException(path + ":1: bad header " + lines.get(0));
            }
            m.name = h.group(1);
            m.apiKey = Integer.parseInt(h.group(2));
            m.valid = Versions.parse(h.group(3));
            m.flexible = Versions.parse(h.group(4));
            if (!path.getFileName().toString().equals(m.name + ".schema")) {
                throw new IllegalArgumentException(path + ": file name does not match message " + m.name);
            }
            // stack of (indent, children list)
            List<Integer> indents = new ArrayList<>();
            List<List<Field>> lists = new ArrayList<>();
            indents.add(0);
            lists.add(m.fields);
            Field last = null;
            int lastIndent = -1;
            for (int i = 1; i < lines.size(); i++) {
                String line = lines.get(i);
                if (line.isBlank() || line.trim().startsWith("#") || STRUCT_MARK.matcher(line).matches()) {
                    continue;
                }
                Matcher f = FIELD.matcher(line);
                if (!f.matches()) {
                    throw new IllegalArgumentException(path + ":" + (i + 1) + ": cannot parse: " + line);
                }
                int indent = f.group(1).length();
                if (last != null && indent > lastIndent) {
                    if (!last.type.isStructLike()) {
                        throw new IllegalArgumentException(path + ":" + (i + 1) + ": members under non-struct " + last.name);
                    }
                    indents.add(indent);
                    lists.add(last.children);
                }
                while (indents.get(indents.size() - 1) > indent) {
                    indents.remove(indents.size() - 1);
                    lists.remove(lists.size() - 1);
                }
                if (indents.get(indents.size() - 1) != indent) {
                    throw new IllegalArgumentException(path + ":" + (i + 1) + ": inconsistent indentation");
                }
                Field field = new Field();
                field.name = f.group(2);
                field.type = Type.parse(f.group(3));
                field.versions = Versions.parse(f.group(4));
                if (f.group(5) != null) {
                    parseOptions(field, f.group(5), path + ":" + (i + 1));
                }
                lists.get(lists.size() - 1).add(field);
                last = field;
                lastIndent = indent;
            }
            collectStructs(m, m.fields, path);
            return m;
        }

        static void parseOptions(Field field, String options, String where) {
            for (String raw : options.split(",")) {
                String o = raw.trim();
                if (o.startsWith("nullable ")) {
                    field.nullable = Versions.parse(o.substring("nullable ".length()).trim());
                } else if (o.startsWith("TAGGED ")) {
                    Matcher t = Pattern.compile("TAGGED tag=(\\d+) (v\\S+)").matcher(o);
                    if (!t.matches()) {
                        throw new IllegalArgumentException(where + ": bad TAGGED option " + o);
                    }
                    field.tag = Integer.parseInt(t.group(1));
                    field.taggedVersions = Versions.parse(t.group(2));
                } else if (o.equals("ignorable")) {
                    field.ignorable = true;
                } else if (o.startsWith("default=")) {
                    field.defaultValue = o.substring("default=".length());
                } else {
                    throw new IllegalArgumentException(where + ": unknown option " + o);
                }
            }
            if (!field.nullable.empty() && !nullableKind(field.type)) {
                throw new IllegalArgumentException(where + ": " + field.name + " cannot be nullable");
            }
            if ("null".equals(field.defaultValue) && field.nullable.empty()) {
                throw new IllegalArgumentException(where + ": " + field.name + " defaults to null but is never nullable");
            }
        }

        static boolean nullableKind(Type t) {
            return switch (t.kind) {
                case STRING, BYTES, RECORDS, ARRAY, STRUCT -> true;
                default -> false;
            };
        }

        static void collectStructs(Message m, List<Field> fields, Path path) {
            for (Field f : fields) {
                if (!f.type.isStructLike()) {
                    if (!f.children.isEmpty()) {
                        throw new IllegalArgumentException(path + ": " + f.name + " has members but is not a struct");
                    }
                    continue;
                }
                String name = f.type.kind == Kind.STRUCT ? f.type.structName : f.type.element.structName;
                if (RESERVED_TYPE_NAMES.contains(name) || name.equals(m.name)) {
                    throw new IllegalArgumentException(path + ": struct name " + name + " is reserved");
                }
                if (f.children.isEmpty()) {
                    throw new IllegalArgumentException(path + ": struct " + name + " has no members");
                }
                Struct existing = m.structs.get(name);
                if (existing != null) {
                    if (!signature(existing.fields).equals(signature(f.children))) {
                        throw new IllegalArgumentException(path + ": struct " + name + " declared twice with different members");
                    }
                    continue;
                }
                m.structs.put(name, new Struct(name, m.name + "." + name, f.children, false));
                collectStructs(m, f.children, path);
            }
        }

        static String signature(List<Field> fields) {
            StringBuilder sb = new StringBuilder();
            for (Field f : fields) {
                sb.append(f.signature()).append(';');
            }
            return sb.toString();
        }
    }

    // ------------------------------------------------------------------------------------------
    // code generation

    static final class Code {
        final StringBuilder sb = new StringBuilder();
        int indent;

        Code line(String s) {
            if (s.isEmpty()) {
                sb.append('\n');
            } else {
                sb.append("    ".repeat(indent)).append(s).append('\n');
            }
            return this;
        }

        Code open(String s) {
            line(s + " {");
            indent++;
            return this;
        }

        Code close() {
            indent--;
            return line("}");
        }

        Code closeWith(String s) {
            indent--;
            return line("} " + s + " {").in();
        }

        Code in() {
            indent++;
            return this;
        }
    }

    static final class MessageWriter {
        final Message m;
        final Code c = new Code();

        MessageWriter(Message m) {
            this.m = m;
        }

        /** A version condition relative to the message's valid range: "true", "false" or an expression. */
        String cond(Versions v) {
            Versions in = v.intersect(m.valid);
            if (in.empty()) {
                return "false";
            }
            boolean lo = in.lo <= m.valid.lo;
            boolean hi = in.hi >= m.valid.hi;
            if (lo && hi) {
                return "true";
            }
            if (lo) {
                return "version <= " + in.hi;
            }
            if (hi) {
                return "version >= " + in.lo;
            }
            return in.lo == in.hi ? "version == " + in.lo : "version >= " + in.lo + " && version <= " + in.hi;
        }

        /** Nullability of a field, simplified within the versions where the field exists at all. */
        String nullCond(Field f) {
            Versions present = f.versions.intersect(m.valid);
            Versions nullable = f.nullable.intersect(present);
            if (nullable.empty()) {
                return "false";
            }
            if (nullable.equals(present)) {
                return "true";
            }
            return cond(f.nullable);
        }

        String flexibleExpr() {
            return cond(m.flexible);
        }

        boolean hasFlexible() {
            return !cond(m.flexible).equals("false");
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

        String generate() {
            c.line("// Generated from wire/src/main/schema/" + m.name + ".schema by wire/src/generator/Generator.java.");
            c.line("// Do not edit: change the schema and rebuild.");
            c.line("package " + PACKAGE + ";");
            c.line("");
            c.line("import io.brook.wire.protocol.ApiKey;");
            c.line("import io.brook.wire.protocol.ApiMessage;");
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
                    + "), versions " + m.valid.lo + "-" + m.valid.hi + ". */");
            c.open("public final class " + m.name + " implements ApiMessage");
            c.line("public static final short LOWEST_VERSION = " + m.valid.lo + ";");
            c.line("public static final short HIGHEST_VERSION = " + m.valid.hi + ";");
            c.line("/** First version with compact types and tagged fields; -1 when there is none. */");
            c.line("public static final short FIRST_FLEXIBLE_VERSION = " + (m.flexible.empty() ? -1 : m.flexible.lo) + ";");
            c.line("");
            Struct top = new Struct(m.name, m.name, m.fields, true);
            body(top);
            for (Struct s : m.structs.values()) {
                c.line("");
                c.line("/** Struct " + s.name + " of " + m.name + ". */");
                c.open("public static final class " + s.name);
                body(s);
                c.close();
            }
            c.close();
            return c.sb.toString();
        }

        void body(Struct s) {
            // fields
            for (Field f : s.fields) {
                c.line("private " + f.type.java() + " " + f.javaName() + ";");
            }
            if (!s.fields.isEmpty()) {
                c.line("");
            }
            // constructors
            c.line("/** Every field at its default. */");
            c.open("public " + s.name + "()");
            for (Field f : s.fields) {
                c.line("this." + f.javaName() + " = " + defaultExpr(f) + ";");
            }
            c.close();
            c.line("");
            readConstructor(s);
            if (s.top) {
                c.line("");
                c.line("/** Reads a body of {@code version} from the buffer's position, advancing it. */");
                c.open("public static " + s.name + " read(ByteBuffer buf, short version)");
                c.open("if (version < LOWEST_VERSION || version > HIGHEST_VERSION)");
                c.line("throw new ProtocolDecodeException(\"" + m.name + ": unsupported version \" + version);");
                c.close();
                c.line("return new " + s.name + "(new ProtocolReader(buf), version);");
                c.close();
                c.line("");
                c.line("@Override");
                c.open("public ApiKey apiKey()");
                c.line("return ApiKey." + m.apiKeyConstant() + ";");
                c.close();
            }
            c.line("");
            sizeMethod(s);
            c.line("");
            writeMethod(s);
            if (!s.top) {
                c.line("");
                isDefaultMethod(s);
            }
            for (Field f : s.fields) {
                c.line("");
                c.open("public " + f.type.java() + " " + f.javaName() + "()");
                c.line("return " + f.javaName() + ";");
                c.close();
                c.line("");
                c.open("public " + s.name + " " + f.javaName() + "(" + f.type.java() + " value)");
                c.line("this." + f.javaName() + " = value;");
                c.line("return this;");
                c.close();
            }
            c.line("");
            equalsHashToString(s);
        }

        // ---- defaults

        String defaultExpr(Field f) {
            String d = f.defaultValue;
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
                    return f.nullable.empty() ? "io.brook.wire.protocol.BufferRecords.EMPTY" : "null";
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
        String nonDefault(Field f, String v) {
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
        String isDefaultValue(Field f, String v) {
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

        String fieldId(Struct s, Field f) {
            return "\"" + s.path + "." + f.javaName() + "\"";
        }

        // ---- read

        void readConstructor(Struct s) {
            c.open((s.top ? "private " : "") + s.name + "(ProtocolReader in, short version)");
            boolean anyTagged = s.fields.stream().anyMatch(Field::tagged);
            if (hasFlexible() || s.fields.stream().anyMatch(f -> needsFlexibleFlag(f.type))) {
                c.line("boolean flexible = " + flexibleExpr() + ";");
            }
            for (Field f : s.fields) {
                String name = "this." + f.javaName();
                if (f.tagged()) {
                    c.line(name + " = " + defaultExpr(f) + ";");
                    continue;
                }
                String cond = cond(f.versions);
                if (cond.equals("false")) {
                    c.line(name + " = " + defaultExpr(f) + ";");
                } else if (cond.equals("true")) {
                    readValue(s, f, name);
                } else {
                    c.open("if (" + cond + ")");
                    readValue(s, f, name);
                    c.closeWith("else");
                    c.line(name + " = " + defaultExpr(f) + ";");
                    c.close();
                }
            }
            if (hasFlexible()) {
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
                        String cond = taggedCond(f);
                        c.open("case " + f.tag + ":");
                        c.open("if (" + cond + ")");
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
            c.close();
        }

        static boolean needsFlexibleFlag(Type t) {
            return switch (t.kind) {
                case STRING, BYTES, RECORDS, ARRAY -> true;
                default -> false;
            };
        }

        List<Field> taggedSorted(Struct s) {
            TreeMap<Integer, Field> byTag = new TreeMap<>();
            for (Field f : s.fields) {
                if (f.tagged() && byTag.put(f.tag, f) != null) {
                    throw new IllegalArgumentException(s.path + ": duplicate tag " + f.tag);
                }
            }
            return new ArrayList<>(byTag.values());
        }

        String compactExpr() {
            return hasFlexible() ? "flexible" : "false";
        }

        /** Emits statements that read field f (its version already checked) into target. */
        void readValue(Struct s, Field f, String target) {
            String id = fieldId(s, f);
            String nullable = nullCond(f);
            String compact = f.tagged() ? "true" : compactExpr();
            Type t = f.type;
            switch (t.kind) {
                case ARRAY -> {
                    String n = "n" + capitalize(f.javaName());
                    c.line("int " + n + " = in.readArrayLength(" + id + ", " + compact + ", " + nullable + ");");
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

        void arrayReadLoop(Type t, String n, String elemRead, String target) {
            String list = "list" + capitalize(n.substring(1));
            c.line("List<" + t.element.boxedJava() + "> " + list + " = new ArrayList<>(" + n + ");");
            c.open("for (int i = 0; i < " + n + "; i++)");
            c.line(list + ".add(" + elemRead + ");");
            c.close();
            c.line(target + " = " + list + ";");
        }

        String elementRead(Type t, String id) {
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
                case STRING -> "in.readString(" + id + ", " + compactExpr() + ", false)";
                case BYTES -> "in.readBytes(" + id + ", " + compactExpr() + ", false)";
                case STRUCT -> "new " + t.structName + "(in, version)";
                default -> throw new IllegalStateException(t.kind.name());
            };
        }

        // ---- size

        void sizeMethod(Struct s) {
            c.line(s.top ? "@Override" : "/** Encoded size at {@code version}. */");
            c.open("public int size(short version)");
            if (s.top) {
                c.line("MessageUtil.checkVersion(\"" + m.name + "\", version, LOWEST_VERSION, HIGHEST_VERSION);");
            }
            if (hasFlexible() || s.fields.stream().anyMatch(f -> needsFlexibleFlag(f.type))) {
                c.line("boolean flexible = " + flexibleExpr() + ";");
            }
            c.line("int size = 0;");
            for (Field f : s.fields) {
                if (f.tagged()) {
                    continue;
                }
                String cond = cond(f.versions);
                if (cond.equals("false")) {
                    continue;
                }
                if (!cond.equals("true")) {
                    c.open("if (" + cond + ")");
                }
                sizeValue(f, "size", compactExpr());
                if (!cond.equals("true")) {
                    c.close();
                }
            }
            if (hasFlexible()) {
                List<Field> tagged = taggedSorted(s);
                c.open("if (flexible)");
                if (tagged.isEmpty()) {
                    c.line("size += 1; // empty tagged-field section");
                } else {
                    c.line("int taggedCount = 0;");
                    for (Field f : tagged) {
                        String cond = and(taggedCond(f), nonDefaultParen(f));
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

        String nonDefaultParen(Field f) {
            return nonDefault(f, "this." + f.javaName());
        }

        /** The version condition under which a tagged field can be carried. */
        String taggedCond(Field f) {
            return cond(f.versions.intersect(f.taggedVersions).intersect(m.flexible));
        }

        void sizeValue(Field f, String acc, String compact) {
            String v = "this." + f.javaName();
            Type t = f.type;
            switch (t.kind) {
                case STRING -> c.line(acc + " += MessageUtil.sizeOfString(" + v + ", " + compact + ");");
                case BYTES -> c.line(acc + " += MessageUtil.sizeOfBytes(" + v + ", " + compact + ");");
                case RECORDS -> c.line(acc + " += MessageUtil.sizeOfRecords(" + v + ", " + compact + ");");
                case STRUCT -> {
                    String nullable = nullCond(f);
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
                    if (e.kind.width > 0) {
                        c.open("if (" + v + " != null)");
                        c.line(acc + " += " + v + ".size() * " + e.kind.width + ";");
                        c.close();
                    } else {
                        c.open("if (" + v + " != null)");
                        c.open("for (" + e.boxedJava() + " element : " + v + ")");
                        switch (e.kind) {
                            case STRING -> c.line(acc + " += MessageUtil.sizeOfString(element, " + compact + ");");
                            case BYTES -> c.line(acc + " += MessageUtil.sizeOfBytes(element, " + compact + ");");
                            case STRUCT -> c.line(acc + " += element.size(version);");
                            default -> throw new IllegalStateException();
                        }
                        c.close();
                        c.close();
                    }
                }
                default -> c.line(acc + " += " + t.kind.width + ";");
            }
        }

        // ---- write

        void writeMethod(Struct s) {
            c.line(s.top ? "@Override" : "/** Writes this struct at {@code version}. */");
            c.open("public void write(ProtocolWriter out, short version)");
            if (s.top) {
                c.line("MessageUtil.checkVersion(\"" + m.name + "\", version, LOWEST_VERSION, HIGHEST_VERSION);");
            }
            if (hasFlexible() || s.fields.stream().anyMatch(f -> needsFlexibleFlag(f.type))) {
                c.line("boolean flexible = " + flexibleExpr() + ";");
            }
            for (Field f : s.fields) {
                if (f.tagged()) {
                    continue;
                }
                String cond = cond(f.versions);
                if (cond.equals("true")) {
                    writeValue(s, f, compactExpr());
                } else if (cond.equals("false")) {
                    notWritable(s, f);
                } else if (f.ignorable) {
                    c.open("if (" + cond + ")");
                    writeValue(s, f, compactExpr());
                    c.close();
                } else {
                    c.open("if (" + cond + ")");
                    writeValue(s, f, compactExpr());
                    c.closeWith("else");
                    notWritable(s, f);
                    c.close();
                }
            }
            if (hasFlexible()) {
                List<Field> tagged = taggedSorted(s);
                c.open("if (flexible)");
                if (tagged.isEmpty()) {
                    c.line("out.writeUnsignedVarint(0);");
                } else {
                    c.line("int taggedCount = 0;");
                    for (Field f : tagged) {
                        String cond = and(taggedCond(f), nonDefaultParen(f));
                        if (!cond.equals("false")) {
                            c.open("if (" + cond + ")");
                            c.line("taggedCount++;");
                            c.close();
                        }
                    }
                    c.line("out.writeUnsignedVarint(taggedCount);");
                    for (Field f : tagged) {
                        String cond = and(taggedCond(f), nonDefaultParen(f));
                        if (cond.equals("false")) {
                            continue;
                        }
                        c.open("if (" + cond + ")");
                        c.line("out.writeUnsignedVarint(" + f.tag + ");");
                        c.line("int tagSize = 0;");
                        sizeValue(f, "tagSize", "true");
                        c.line("out.writeUnsignedVarint(tagSize);");
                        writeValue(s, f, "true");
                        c.close();
                    }
                }
                c.close();
            }
            // tagged fields that this version cannot carry
            for (Field f : taggedSorted(s)) {
                if (f.ignorable) {
                    continue;
                }
                String notIn = not(taggedCond(f));
                if (notIn.equals("false")) {
                    continue;
                }
                c.open("if (" + and(notIn, nonDefaultParen(f)) + ")");
                c.line("throw MessageUtil.cannotWrite(" + fieldId(s, f) + ", version);");
                c.close();
            }
            c.close();
        }

        void notWritable(Struct s, Field f) {
            if (f.ignorable) {
                return; // dropped silently when the version lacks it
            }
            c.open("if (" + nonDefault(f, "this." + f.javaName()) + ")");
            c.line("throw MessageUtil.cannotWrite(" + fieldId(s, f) + ", version);");
            c.close();
        }

        void writeValue(Struct s, Field f, String compact) {
            String v = "this." + f.javaName();
            String id = fieldId(s, f);
            String nullable = nullCond(f);
            Type t = f.type;
            switch (t.kind) {
                case STRING -> c.line("MessageUtil.writeString(out, " + id + ", " + v + ", " + compact + ", " + nullable + ", version);");
                case BYTES -> c.line("MessageUtil.writeBytes(out, " + id + ", " + v + ", " + compact + ", " + nullable + ", version);");
                case RECORDS -> c.line("MessageUtil.writeRecords(out, " + id + ", " + v + ", " + compact + ", " + nullable + ", version);");
                case STRUCT -> {
                    if (nullable.equals("false")) {
                        c.line("MessageUtil.checkNotNull(" + id + ", " + v + ", version);");
                        c.line(v + ".write(out, version);");
                    } else {
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
                }
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

        static String primitiveWrite(Kind k, String v) {
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

        // ---- isDefault, equals, hashCode, toString

        void isDefaultMethod(Struct s) {
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
                    sb.append(isDefaultValue(s.fields.get(i), "this." + s.fields.get(i).javaName()));
                }
                c.line(sb.append(";").toString());
            }
            c.close();
        }

        void equalsHashToString(Struct s) {
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

        static String capitalize(String s) {
            return Character.toUpperCase(s.charAt(0)) + s.substring(1);
        }
    }

    // ------------------------------------------------------------------------------------------
    // registry

    static String registry(List<Message> messages) {
        Map<String, Message> requests = new TreeMap<>();
        Map<String, Message> responses = new TreeMap<>();
        for (Message m : messages) {
            (m.isRequest() ? requests : responses).put(m.apiKeyConstant(), m);
        }
        if (!requests.keySet().equals(responses.keySet())) {
            throw new IllegalArgumentException("requests and responses differ: " + requests.keySet() + " vs " + responses.keySet());
        }
        Code c = new Code();
        c.line("// Generated by wire/src/generator/Generator.java from wire/src/main/schema. Do not edit.");
        c.line("package " + PACKAGE + ";");
        c.line("");
        c.line("import io.brook.wire.protocol.ApiKey;");
        c.line("import io.brook.wire.protocol.ApiMessage;");
        c.line("import io.brook.wire.protocol.ProtocolDecodeException;");
        c.line("import java.nio.ByteBuffer;");
        c.line("");
        c.line("/** Reads and creates message bodies by API key. */");
        c.open("public final class ApiMessages");
        c.open("private ApiMessages()");
        c.close();
        for (String kind : List.of("Request", "Response")) {
            Map<String, Message> map = kind.equals("Request") ? requests : responses;
            c.line("");
            c.line("/**");
            c.line(" * Reads a " + kind.toLowerCase(Locale.ROOT) + " body of {@code key} (null for a key Brook does not know) at");
            c.line(" * {@code version} from the buffer's position.");
            c.line(" *");
            c.line(" * @throws ProtocolDecodeException on malformed input or a version outside the codec's range");
            c.line(" */");
            c.open("public static ApiMessage read" + kind + "(ApiKey key, short version, ByteBuffer body)");
            c.open("if (key == null)");
            c.line("throw new ProtocolDecodeException(\"ApiMessages: unknown api key\");");
            c.close();
            c.open("return switch (key)");
            for (Map.Entry<String, Message> e : map.entrySet()) {
                c.line("case " + e.getKey() + " -> " + e.getValue().name + ".read(body, version);");
            }
            c.close();
            c.sb.setLength(c.sb.length() - 1);
            c.sb.append(";\n");
            c.close();
            c.line("");
            c.line("/** A new " + kind.toLowerCase(Locale.ROOT) + " body of {@code key} with every field at its default. */");
            c.open("public static ApiMessage new" + kind + "(ApiKey key)");
            c.open("return switch (key)");
            for (Map.Entry<String, Message> e : map.entrySet()) {
                c.line("case " + e.getKey() + " -> new " + e.getValue().name + "();");
            }
            c.close();
            c.sb.setLength(c.sb.length() - 1);
            c.sb.append(";\n");
            c.close();
        }
        c.close();
        return c.sb.toString();
    }
}
