package io.brook.wire.generator;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Writes a request's {@code errorResponse(short version, Errors error)} from the schemas of the
 * request and its response, following the response's {@code mirror=}, {@code copy=} and
 * {@code onerror=} options (see {@link Generator}). Every condition is simplified against the
 * versions in which the code around it runs.
 */
final class ErrorResponseWriter {
    private final Message request;
    private final Message response;
    private final Code c;
    private final Conditions versions;
    /** Response fields the method sets ("Struct.Field"), to find options that no error response reaches. */
    private final Set<String> reached = new HashSet<>();
    private int names;

    /** Where values come from: a request struct, or one value of a request array of plain values. */
    private record Source(Struct struct, String arrayName, Type element, String expr) {
        boolean isStruct() {
            return struct != null;
        }

        /** The Java expression of a field of this source struct. */
        String field(Field f) {
            return expr.equals("this") ? "this." + f.javaName() : expr + "." + f.javaName() + "()";
        }
    }

    ErrorResponseWriter(Message request, Message response, Code c) {
        if (!request.valid.equals(response.valid)) {
            throw new IllegalArgumentException(request.name + " and " + response.name + " differ in their valid versions");
        }
        this.request = request;
        this.response = response;
        this.c = c;
        this.versions = new Conditions(response);
    }

    void write() {
        c.line("/**");
        c.line(" * The response that fails this request as a whole with {@code error}: one element for each");
        c.line(" * topic, partition, group or resource the request names, the error code at every level that");
        c.line(" * has one, the schema's error values (such as -1 offsets), everything else at its default.");
        c.line(" */");
        c.line("@Override");
        c.open("public " + response.name + " errorResponse(short version, Errors error)");
        c.line("MessageUtil.checkVersion(\"" + request.name + "\", version, LOWEST_VERSION, HIGHEST_VERSION);");
        c.line(response.name + " response = new " + response.name + "();");
        fill("response", response.name, response.fields, new Source(request.top(), null, null, "this"), response.valid);
        c.line("return response;");
        c.close();
        checkEveryOptionReached(response.name, response.fields);
    }

    /** Sets the fields of {@code target} (a response struct) from {@code source}, for versions of {@code context}. */
    private void fill(String target, String owner, List<Field> fields, Source source, Versions context) {
        for (Field f : fields) {
            Versions present = (f.tagged() ? versions.taggedVersions(f) : f.versions).intersect(context);
            String cond = versions.cond(present, context);
            if (!f.mirror.isEmpty()) {
                reached.add(owner + "." + f.name);
                if (!cond.equals("false")) {
                    guarded(cond, () -> mirror(target, f, source, present));
                }
                continue;
            }
            String value;
            if (f.isErrorCode()) {
                value = "error.code()";
            } else if (f.onError != null) {
                value = onErrorValue(f, f.onError, present);
            } else if (f.isErrorMessage()) {
                // null where the field may be: the client then uses its error's own text, as with Kafka
                value = onErrorValue(f, "null", present);
            } else if (!f.copy.isEmpty()) {
                value = copyValue(f, source, present);
                if (value == null) {
                    continue; // nothing to copy from in this source; checked once all are written
                }
            } else {
                continue;
            }
            reached.add(owner + "." + f.name);
            if (value != null && !cond.equals("false")) {
                guarded(cond, () -> c.line(target + "." + f.javaName() + "(" + value + ");"));
            }
        }
    }

    private void guarded(String cond, Runnable body) {
        if (cond.equals("true")) {
            body.run();
            return;
        }
        c.open("if (" + cond + ")");
        body.run();
        c.close();
    }

    /** The {@code onerror=} value, or null when the field keeps its default. */
    private String onErrorValue(Field f, String onError, Versions present) {
        String literal = Values.literal(f, onError);
        if (!literal.equals("null")) {
            return literal;
        }
        String nullable = versions.nullCond(f, present);
        return switch (nullable) {
            case "true" -> "null";
            case "false" -> null; // never null where the field exists: it keeps its default
            default -> nullable + " ? null : " + nonNullDefault(f);
        };
    }

    private static String nonNullDefault(Field f) {
        return Values.literal(f, "null".equals(f.defaultValue) ? null : f.defaultValue);
    }

    /** The value to copy, or null when no name of {@code copy=} resolves in this source. */
    private String copyValue(Field f, Source source, Versions present) {
        for (String name : f.copy) {
            String expr = null;
            Type from = null;
            if (source.isStruct()) {
                Field s = source.struct().field(name);
                if (s != null) {
                    expr = source.field(s);
                    from = s.type;
                }
            } else if (name.equals(source.arrayName())) {
                expr = source.expr();
                from = source.element();
            }
            if (expr == null) {
                continue;
            }
            if (!from.signature().equals(f.type.signature())) {
                throw new IllegalArgumentException(response.name + "." + f.name + ": copy=" + name + " has type "
                        + from.signature() + ", not " + f.type.signature());
            }
            if (!f.type.kind.isReference()) {
                return expr;
            }
            String nullable = versions.nullCond(f, present);
            return switch (nullable) {
                case "true" -> expr;
                case "false" -> expr + " == null ? " + nonNullDefault(f) + " : " + expr;
                default -> expr + " == null && !" + Conditions.paren(nullable) + " ? " + nonNullDefault(f) + " : " + expr;
            };
        }
        return null;
    }

    /** Fills the response array {@code f} with one element per element of the request array it mirrors. */
    private void mirror(String target, Field f, Source source, Versions context) {
        if (!source.isStruct()) {
            throw new IllegalArgumentException(response.name + "." + f.name + ": cannot mirror inside the values of "
                    + source.arrayName());
        }
        if (f.mirror.size() == 1 && f.mirror.get(0).contains(".")) {
            mirrorPath(target, f, source, context);
            return;
        }
        List<Field> alternatives = new ArrayList<>();
        for (String name : f.mirror) {
            Field from = source.struct().field(name);
            if (from == null || from.type.kind != Kind.ARRAY) {
                throw new IllegalArgumentException(response.name + "." + f.name + ": mirror=" + name
                        + " is not an array of " + source.struct().path);
            }
            alternatives.add(from);
        }
        Struct element = response.structs.get(f.type.structOf());
        String elementClass = response.name + "." + element.name;
        String list = "list" + names++;
        c.line("List<" + elementClass + "> " + list + " = new ArrayList<>();");
        if (alternatives.size() == 1) {
            mirrorLoop(list, elementClass, element, alternatives.get(0), source, context);
        } else {
            // the first alternative that exists in the version; each branch knows its versions
            Versions remaining = context;
            boolean open = false;
            for (Field from : alternatives) {
                Versions branch = from.versions.intersect(remaining);
                String when = versions.cond(branch, remaining);
                if (when.equals("false")) {
                    continue;
                }
                if (when.equals("true")) {
                    if (open) {
                        c.closeWith("else");
                    }
                    mirrorLoop(list, elementClass, element, from, source, branch);
                    break;
                }
                if (open) {
                    c.closeWith("else if (" + when + ")");
                } else {
                    c.open("if (" + when + ")");
                    open = true;
                }
                mirrorLoop(list, elementClass, element, from, source, branch);
                remaining = without(remaining, branch);
            }
            if (open) {
                c.close();
            }
        }
        c.line(target + "." + f.javaName() + "(" + list + ");");
    }

    /**
     * {@code mirror=A.B}: one element per element of the request arrays {@code B} of every element
     * of {@code A} (the request nests what the response lists flat). Every array on the path but
     * the last is one of structs present wherever the response array is.
     */
    private void mirrorPath(String target, Field f, Source source, Versions context) {
        String[] path = f.mirror.get(0).split("\\.");
        Struct element = response.structs.get(f.type.structOf());
        String elementClass = response.name + "." + element.name;
        String list = "list" + names++;
        c.line("List<" + elementClass + "> " + list + " = new ArrayList<>();");
        Source at = source;
        int opened = 0;
        for (int i = 0; i < path.length - 1; i++) {
            Field outer = at.struct().field(path[i]);
            if (outer == null || outer.type.kind != Kind.ARRAY || outer.type.element.kind != Kind.STRUCT
                    || !outer.versions.intersect(context).equals(context)) {
                throw new IllegalArgumentException(response.name + "." + f.name + ": mirror=" + f.mirror.get(0)
                        + ": " + path[i] + " is not an array of structs of " + at.struct().path + " in every version");
            }
            String array = at.field(outer);
            if (!versions.nullCond(outer, context).equals("false")) {
                c.open("if (" + array + " != null)");
                opened++;
            }
            String e = "e" + names++;
            c.open("for (" + outer.type.element.structName + " " + e + " : " + array + ")");
            opened++;
            at = new Source(request.structs.get(outer.type.element.structName), null, null, e);
        }
        Field last = at.struct().field(path[path.length - 1]);
        if (last == null || last.type.kind != Kind.ARRAY) {
            throw new IllegalArgumentException(response.name + "." + f.name + ": mirror=" + f.mirror.get(0)
                    + ": " + path[path.length - 1] + " is not an array of " + at.struct().path);
        }
        mirrorLoop(list, elementClass, element, last, at, context);
        for (int i = 0; i < opened; i++) {
            c.close();
        }
        c.line(target + "." + f.javaName() + "(" + list + ");");
    }

    /** {@code range} less {@code taken} when that leaves one range, else {@code range}. */
    private static Versions without(Versions range, Versions taken) {
        if (taken.lo() <= range.lo()) {
            return new Versions(taken.hi() + 1, range.hi());
        }
        if (taken.hi() >= range.hi()) {
            return new Versions(range.lo(), taken.lo() - 1);
        }
        return range;
    }

    private void mirrorLoop(String list, String elementClass, Struct element, Field from, Source source,
                            Versions context) {
        String array = source.field(from);
        boolean nullable = !versions.nullCond(from, context).equals("false");
        if (nullable) {
            c.open("if (" + array + " != null)");
        }
        String e = "e" + names;
        String r = "r" + names++;
        Type t = from.type.element;
        String elementType = t.kind == Kind.STRUCT ? t.structName : t.kind.javaType;
        c.open("for (" + elementType + " " + e + " : " + array + ")");
        c.line(elementClass + " " + r + " = new " + elementClass + "();");
        Source inner = t.kind == Kind.STRUCT
                ? new Source(request.structs.get(t.structName), null, null, e)
                : new Source(null, from.name, t, e);
        fill(r, element.name, element.fields, inner, context);
        c.line(list + ".add(" + r + ");");
        c.close();
        if (nullable) {
            c.close();
        }
    }

    private void checkEveryOptionReached(String owner, List<Field> fields) {
        for (Field f : fields) {
            boolean hasOption = !f.mirror.isEmpty() || !f.copy.isEmpty() || f.onError != null;
            if (hasOption && !reached.contains(owner + "." + f.name)) {
                throw new IllegalArgumentException(owner + "." + f.name
                        + ": no error response reaches its mirror, copy or onerror (its struct is not mirrored, or"
                        + " copy= names nothing in the request elements it mirrors)");
            }
            if (f.type.isStructLike()) {
                checkEveryOptionReached(f.type.structOf(), f.children);
            }
        }
    }
}
