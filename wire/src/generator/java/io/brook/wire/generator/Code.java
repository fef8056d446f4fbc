package io.brook.wire.generator;

/** Java source being written, with the current indentation. */
final class Code {
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

    /** Turns the {@code "}\n"} just written into {@code "};\n"} (the end of a switch expression). */
    Code semicolon() {
        sb.setLength(sb.length() - 1);
        sb.append(";\n");
        return this;
    }

    @Override
    public String toString() {
        return sb.toString();
    }
}
