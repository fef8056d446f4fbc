package io.brook.server.security;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Kafka's {@code ssl.principal.mapping.rules}: how the distinguished name of a client certificate
 * becomes a user name. A list of rules, tried in order, the first that matches wins:
 * {@code RULE:<regex>/<replacement>/[L|U]} (the whole DN must match the regex; the replacement
 * may use its groups; L or U lower- or upper-cases the result) or {@code DEFAULT} (the DN as it
 * is). When no rule matches, the client is refused, as in Kafka.
 */
final class SslPrincipalMapper {

    private static final Pattern RULE = Pattern.compile(
            "\\s*(?:(DEFAULT)|RULE:((?:\\\\.|[^\\\\/])*)/((?:\\\\.|[^\\\\/])*)/([LU]?))\\s*(?:,|$)");

    private record Rule(boolean isDefault, Pattern pattern, String replacement, String caseChange) {
    }

    private final List<Rule> rules;

    private SslPrincipalMapper(List<Rule> rules) {
        this.rules = rules;
    }

    static SslPrincipalMapper parse(String spec) {
        List<Rule> rules = new ArrayList<>();
        String s = spec == null || spec.isBlank() ? "DEFAULT" : spec.trim();
        Matcher m = RULE.matcher(s);
        int at = 0;
        while (at < s.length()) {
            if (!m.find(at) || m.start() != at) {
                throw new IllegalArgumentException("Invalid value for configuration ssl.principal.mapping.rules:"
                        + " expected DEFAULT or RULE:pattern/replacement/[LU], at '" + s.substring(at) + "'");
            }
            if (m.group(1) != null) {
                rules.add(new Rule(true, null, null, ""));
            } else {
                rules.add(new Rule(false, Pattern.compile(m.group(2)), m.group(3), m.group(4)));
            }
            at = m.end();
        }
        return new SslPrincipalMapper(List.copyOf(rules));
    }

    /** The user name for {@code dn}, or null when no rule applies. */
    String map(String dn) {
        for (Rule r : rules) {
            if (r.isDefault()) {
                return dn;
            }
            Matcher m = r.pattern().matcher(dn);
            if (m.matches()) {
                String name = m.replaceAll(r.replacement());
                return switch (r.caseChange()) {
                    case "L" -> name.toLowerCase(Locale.ROOT);
                    case "U" -> name.toUpperCase(Locale.ROOT);
                    default -> name;
                };
            }
        }
        return null;
    }
}
