package io.brook.wire.generator;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads one schema file (format: see {@link Generator}) into a {@link Message}. */
final class SchemaParser {
    private static final Pattern HEADER = Pattern.compile("## (\\w+) key=(\\d+) valid=(\\S+) flex=(\\S+)");
    private static final Pattern FIELD = Pattern.compile("( *)- (\\w+): (\\S+) (v\\S+)(?: \\((.*)\\))?");
    private static final Pattern STRUCT_MARK = Pattern.compile(" *\\(struct \\w+\\)");
    private static final Pattern TAGGED = Pattern.compile("TAGGED tag=(\\d+) (v\\S+)");
    private static final Pattern SOURCES = Pattern.compile("[A-Z]\\w*(\\.[A-Z]\\w*)*(\\|[A-Z]\\w*(\\.[A-Z]\\w*)*)*");

    /** Names the generated code uses itself; a struct may not take them. */
    private static final Set<String> RESERVED_TYPE_NAMES = Set.of("List", "ArrayList", "UUID", "Objects", "Arrays",
            "ByteBuffer", "Records", "ApiKey", "ApiMessage", "ApiRequest", "Errors", "ProtocolReader",
            "ProtocolWriter", "MessageUtil", "Varints", "Utf8", "ProtocolDecodeException", "String", "Integer", "Long",
            "Short", "Byte", "Double", "Boolean", "Object");

    private SchemaParser() {
    }

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
            if (m.isRequest() && (!field.mirror.isEmpty() || !field.copy.isEmpty() || field.onError != null)) {
                throw new IllegalArgumentException(path + ":" + (i + 1) + ": mirror, copy and onerror belong in responses");
            }
            lists.get(lists.size() - 1).add(field);
            last = field;
            lastIndent = indent;
        }
        collectStructs(m, m.fields, path);
        return m;
    }

    private static void parseOptions(Field field, String options, String where) {
        for (String raw : options.split(",")) {
            String o = raw.trim();
            if (o.startsWith("nullable ")) {
                field.nullable = Versions.parse(o.substring("nullable ".length()).trim());
            } else if (o.startsWith("TAGGED ")) {
                Matcher t = TAGGED.matcher(o);
                if (!t.matches()) {
                    throw new IllegalArgumentException(where + ": bad TAGGED option " + o);
                }
                field.tag = Integer.parseInt(t.group(1));
                field.taggedVersions = Versions.parse(t.group(2));
            } else if (o.equals("ignorable")) {
                field.ignorable = true;
            } else if (o.startsWith("default=")) {
                field.defaultValue = o.substring("default=".length());
            } else if (o.startsWith("mirror=")) {
                field.mirror.addAll(sources(o.substring("mirror=".length()), where));
            } else if (o.startsWith("copy=")) {
                field.copy.addAll(sources(o.substring("copy=".length()), where));
            } else if (o.startsWith("onerror=")) {
                field.onError = o.substring("onerror=".length());
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
        if (!field.mirror.isEmpty() && !(field.type.kind == Kind.ARRAY && field.type.element.kind == Kind.STRUCT)) {
            throw new IllegalArgumentException(where + ": only an array of structs can mirror");
        }
        if ((!field.copy.isEmpty() || field.onError != null) && field.type.isStructLike()) {
            throw new IllegalArgumentException(where + ": copy and onerror take values, not structs");
        }
        if (!field.copy.isEmpty() && field.onError != null) {
            throw new IllegalArgumentException(where + ": a field is either copied or set on error, not both");
        }
        if ("null".equals(field.onError) && field.nullable.empty()) {
            throw new IllegalArgumentException(where + ": " + field.name + " is null on error but is never nullable");
        }
    }

    private static List<String> sources(String text, String where) {
        if (!SOURCES.matcher(text).matches()) {
            throw new IllegalArgumentException(where + ": expected request field names separated by |: " + text);
        }
        return Arrays.asList(text.split("\\|"));
    }

    private static boolean nullableKind(Type t) {
        return switch (t.kind) {
            case STRING, BYTES, RECORDS, ARRAY, STRUCT -> true;
            default -> false;
        };
    }

    private static void collectStructs(Message m, List<Field> fields, Path path) {
        for (Field f : fields) {
            if (!f.type.isStructLike()) {
                if (!f.children.isEmpty()) {
                    throw new IllegalArgumentException(path + ": " + f.name + " has members but is not a struct");
                }
                continue;
            }
            String name = f.type.structOf();
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

    private static String signature(List<Field> fields) {
        StringBuilder sb = new StringBuilder();
        for (Field f : fields) {
            sb.append(f.signature()).append(';');
        }
        return sb.toString();
    }
}
