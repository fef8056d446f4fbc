package io.brook.server.security;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One login module entry of a JAAS configuration as Kafka's {@code sasl.jaas.config} holds it:
 * {@code <LoginModuleClass> <flag> name="value" ...;}. Values may be quoted (with {@code \"}
 * escapes) or bare. Only the options matter to the broker: the module class tells nothing more
 * than the mechanism, which the setting's name already gives.
 */
record JaasConfig(String loginModule, Map<String, String> options) {

    static JaasConfig parse(String text) {
        String s = text.trim();
        int i = 0;
        int n = s.length();
        int start = i;
        while (i < n && !Character.isWhitespace(s.charAt(i))) {
            i++;
        }
        String module = s.substring(start, i);
        i = skipSpace(s, i);
        start = i;
        while (i < n && Character.isLetter(s.charAt(i))) {
            i++;
        }
        String flag = s.substring(start, i);
        if (module.isEmpty() || !(flag.equalsIgnoreCase("required") || flag.equalsIgnoreCase("requisite")
                || flag.equalsIgnoreCase("sufficient") || flag.equalsIgnoreCase("optional"))) {
            throw new IllegalArgumentException("expected '<LoginModuleClass> required name=\"value\" ...;'");
        }
        Map<String, String> options = new LinkedHashMap<>();
        while (true) {
            i = skipSpace(s, i);
            if (i >= n) {
                throw new IllegalArgumentException("the JAAS configuration must end with ';'");
            }
            if (s.charAt(i) == ';') {
                if (!s.substring(i + 1).isBlank()) {
                    throw new IllegalArgumentException("one login module only, and nothing after its ';'");
                }
                break;
            }
            start = i;
            while (i < n && s.charAt(i) != '=' && !Character.isWhitespace(s.charAt(i)) && s.charAt(i) != ';') {
                i++;
            }
            String name = s.substring(start, i);
            i = skipSpace(s, i);
            if (name.isEmpty() || i >= n || s.charAt(i) != '=') {
                throw new IllegalArgumentException("expected name=value at '" + name + "'");
            }
            i = skipSpace(s, i + 1);
            StringBuilder value = new StringBuilder();
            if (i < n && s.charAt(i) == '"') {
                i++;
                while (i < n && s.charAt(i) != '"') {
                    char c = s.charAt(i);
                    if (c == '\\' && i + 1 < n) {
                        c = s.charAt(++i);
                    }
                    value.append(c);
                    i++;
                }
                if (i >= n) {
                    throw new IllegalArgumentException("unterminated quoted value of " + name);
                }
                i++;
            } else {
                while (i < n && !Character.isWhitespace(s.charAt(i)) && s.charAt(i) != ';') {
                    value.append(s.charAt(i++));
                }
            }
            options.put(name, value.toString());
        }
        return new JaasConfig(module, Collections.unmodifiableMap(options));
    }

    private static int skipSpace(String s, int i) {
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
        return i;
    }
}
