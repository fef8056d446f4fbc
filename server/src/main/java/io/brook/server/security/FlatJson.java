package io.brook.server.security;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Just enough JSON for the header and claims of a token: one object whose values are strings,
 * numbers (as {@link Double}), booleans, null, arrays and nested objects. Anything malformed is
 * an {@link IllegalArgumentException}; nesting is bounded, so hostile input cannot overflow the
 * stack.
 */
final class FlatJson {

    private static final int MAX_DEPTH = 16;

    private final String s;
    private int i;

    private FlatJson(String s) {
        this.s = s;
    }

    static Map<String, Object> parseObject(String text) {
        FlatJson p = new FlatJson(text);
        p.space();
        Object v = p.value(0);
        p.space();
        if (!(v instanceof Map<?, ?>) || p.i != text.length()) {
            throw new IllegalArgumentException("not a JSON object");
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> m = (Map<String, Object>) v;
        return m;
    }

    private Object value(int depth) {
        if (depth > MAX_DEPTH) {
            throw new IllegalArgumentException("JSON nested too deeply");
        }
        char c = peek();
        switch (c) {
            case '{' -> {
                i++;
                Map<String, Object> m = new LinkedHashMap<>();
                space();
                if (peek() == '}') {
                    i++;
                    return m;
                }
                while (true) {
                    space();
                    String key = string();
                    space();
                    expect(':');
                    space();
                    m.put(key, value(depth + 1));
                    space();
                    if (peek() == ',') {
                        i++;
                    } else {
                        expect('}');
                        return m;
                    }
                }
            }
            case '[' -> {
                i++;
                List<Object> list = new ArrayList<>();
                space();
                if (peek() == ']') {
                    i++;
                    return list;
                }
                while (true) {
                    space();
                    list.add(value(depth + 1));
                    space();
                    if (peek() == ',') {
                        i++;
                    } else {
                        expect(']');
                        return list;
                    }
                }
            }
            case '"' -> {
                return string();
            }
            default -> {
                if (s.startsWith("true", i)) {
                    i += 4;
                    return Boolean.TRUE;
                }
                if (s.startsWith("false", i)) {
                    i += 5;
                    return Boolean.FALSE;
                }
                if (s.startsWith("null", i)) {
                    i += 4;
                    return null;
                }
                int start = i;
                while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
                    i++;
                }
                if (start == i) {
                    throw new IllegalArgumentException("unexpected character in JSON at " + i);
                }
                try {
                    return Double.valueOf(s.substring(start, i));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("bad JSON number at " + start, e);
                }
            }
        }
    }

    private String string() {
        expect('"');
        StringBuilder out = new StringBuilder();
        while (true) {
            if (i >= s.length()) {
                throw new IllegalArgumentException("unterminated JSON string");
            }
            char c = s.charAt(i++);
            if (c == '"') {
                return out.toString();
            }
            if (c == '\\') {
                if (i >= s.length()) {
                    throw new IllegalArgumentException("unterminated JSON string");
                }
                char e = s.charAt(i++);
                switch (e) {
                    case 'n' -> out.append('\n');
                    case 't' -> out.append('\t');
                    case 'r' -> out.append('\r');
                    case 'b' -> out.append('\b');
                    case 'f' -> out.append('\f');
                    case 'u' -> {
                        if (i + 4 > s.length()) {
                            throw new IllegalArgumentException("bad JSON escape");
                        }
                        out.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        i += 4;
                    }
                    default -> out.append(e);
                }
            } else {
                out.append(c);
            }
        }
    }

    private char peek() {
        if (i >= s.length()) {
            throw new IllegalArgumentException("JSON ends early");
        }
        return s.charAt(i);
    }

    private void expect(char c) {
        if (peek() != c) {
            throw new IllegalArgumentException("expected '" + c + "' in JSON at " + i);
        }
        i++;
    }

    private void space() {
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
    }
}
