package io.brook.wire.protocol;

/**
 * Makes a name that came from a client (topic, group id, member id, client id, transactional id)
 * safe to print in a log line. Everything that could end, fake or hide a line is replaced by a
 * visible escape: {@code \n}, {@code \r} and {@code \t} by their backslash forms, other control
 * characters by {@code \xHH}, and line or paragraph separators, format characters (bidirectional
 * overrides), unpaired surrogates, private-use and unassigned code points by {@code \}{@code uHHHH};
 * a backslash becomes two, so an escape in the output always means the character it names.
 *
 * <p>Only for log statements: names in responses and on disk stay exactly as they are. Printable
 * names, the usual case, are returned as the same instance without copying.
 */
public final class LogSafe {

    private LogSafe() {
    }

    /** The value as text fit for one log line; {@code "null"} for null. */
    public static String escape(Object value) {
        String s = String.valueOf(value);
        int i = 0;
        while (i < s.length() && !needsEscape(s, i)) {
            i++;
        }
        if (i == s.length()) {
            return s;
        }
        StringBuilder out = new StringBuilder(s.length() + 16).append(s, 0, i);
        for (; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!needsEscape(s, i)) {
                out.append(c);
                continue;
            }
            switch (c) {
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x100) {
                        out.append("\\x").append(hex(c >> 4)).append(hex(c));
                    } else {
                        out.append("\\u").append(hex(c >> 12)).append(hex(c >> 8)).append(hex(c >> 4)).append(hex(c));
                    }
                }
            }
        }
        return out.toString();
    }

    private static boolean needsEscape(String s, int i) {
        char c = s.charAt(i);
        if (c >= 0x20 && c < 0x7f) {
            return c == '\\';
        }
        if (Character.isHighSurrogate(c)) {
            return i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1))
                    || unprintable(s.codePointAt(i));
        }
        if (Character.isLowSurrogate(c)) {
            return i == 0 || !Character.isHighSurrogate(s.charAt(i - 1)) || unprintable(s.codePointAt(i - 1));
        }
        return unprintable(c);
    }

    private static boolean unprintable(int codePoint) {
        return switch (Character.getType(codePoint)) {
            case Character.CONTROL, Character.FORMAT, Character.LINE_SEPARATOR, Character.PARAGRAPH_SEPARATOR,
                    Character.SURROGATE, Character.PRIVATE_USE, Character.UNASSIGNED -> true;
            default -> false;
        };
    }

    private static char hex(int nibble) {
        return Character.forDigit(nibble & 0xf, 16);
    }
}
