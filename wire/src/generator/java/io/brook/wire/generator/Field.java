package io.brook.wire.generator;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** One field of a message or struct, as the schema declares it. */
final class Field {
    static final Set<String> JAVA_KEYWORDS = Set.of("abstract", "assert", "boolean", "break", "byte", "case",
            "catch", "char", "class", "const", "continue", "default", "do", "double", "else", "enum", "extends",
            "final", "finally", "float", "for", "goto", "if", "implements", "import", "instanceof", "int",
            "interface", "long", "native", "new", "package", "private", "protected", "public", "return", "short",
            "static", "strictfp", "super", "switch", "synchronized", "this", "throw", "throws", "transient", "try",
            "void", "volatile", "while", "true", "false", "null", "var", "record", "yield");

    String name;
    Type type;
    Versions versions;
    Versions nullable = Versions.NONE;
    int tag = -1;
    Versions taggedVersions = Versions.NONE;
    boolean ignorable;
    String defaultValue; // raw text, null if unspecified
    /** Response arrays only: the request arrays this one mirrors, the first present in a version wins. */
    final List<String> mirror = new ArrayList<>();
    /** Response fields only: where in the mirrored request element the value comes from. */
    final List<String> copy = new ArrayList<>();
    /** Response fields only: the value in an error response (raw text as for defaults), null if unspecified. */
    String onError;
    final List<Field> children = new ArrayList<>();

    String javaName() {
        String n = Character.toLowerCase(name.charAt(0)) + name.substring(1);
        return JAVA_KEYWORDS.contains(n) ? n + "_" : n;
    }

    boolean tagged() {
        return tag >= 0;
    }

    /** Whether an error response puts the error code here (see the generator's class comment). */
    boolean isErrorCode() {
        return name.equals("ErrorCode") && type.kind == Kind.INT16;
    }

    boolean isErrorMessage() {
        return name.equals("ErrorMessage") && type.kind == Kind.STRING;
    }

    String signature() {
        StringBuilder sb = new StringBuilder(name).append(':').append(type.signature()).append(versions)
                .append(nullable).append(tag).append(ignorable).append(defaultValue)
                .append(mirror).append(copy).append(onError).append('{');
        for (Field c : children) {
            sb.append(c.signature()).append(';');
        }
        return sb.append('}').toString();
    }
}
