package io.brook.server.metrics;

import java.util.Arrays;
import java.util.Locale;

/**
 * A metric's name in Kafka's JMX scheme, {@code domain:type=T,name=N[,tag=value...]} (e.g.
 * {@code kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec,topic=orders}), and the same
 * name for Prometheus, the way the common jmx_exporter rules for Kafka spell it: domain, type and
 * name lowercased and joined by underscores ({@code kafka_server_brokertopicmetrics_messagesinpersec}),
 * the other tags as labels ({@code topic="orders"}). The metric registry is keyed by
 * {@link #objectName()}. Immutable.
 */
public final class MetricName {

    private final String type;
    private final String name;
    private final String[] tagNames;
    private final String[] tagValues;
    private final String objectName;
    private final String prometheusName;

    private MetricName(String domain, String type, String name, String[] tagNames, String[] tagValues) {
        this.type = type;
        this.name = name;
        this.tagNames = tagNames;
        this.tagValues = tagValues;
        StringBuilder b = new StringBuilder(domain).append(":type=").append(type).append(",name=").append(name);
        for (int i = 0; i < tagNames.length; i++) {
            b.append(',').append(tagNames[i]).append('=').append(quoteIfNeeded(tagValues[i]));
        }
        this.objectName = b.toString();
        this.prometheusName = sanitize(domain + "_" + type + "_" + name);
    }

    /** {@code tags}: name, value, name, value... */
    public static MetricName of(String domain, String type, String name, String... tags) {
        if (tags.length % 2 != 0) {
            throw new IllegalArgumentException("tags come in name/value pairs: " + Arrays.toString(tags));
        }
        String[] names = new String[tags.length / 2];
        String[] values = new String[tags.length / 2];
        for (int i = 0; i < names.length; i++) {
            names[i] = tags[2 * i];
            values[i] = tags[2 * i + 1];
        }
        return new MetricName(domain, type, name, names, values);
    }

    /** The JMX ObjectName, as a string. */
    public String objectName() {
        return objectName;
    }

    /** The Prometheus metric family name (without a counter's {@code _total}). */
    public String prometheusName() {
        return prometheusName;
    }

    public String type() {
        return type;
    }

    public String name() {
        return name;
    }

    String[] labelNames() {
        return tagNames.clone();
    }

    String[] labelValues() {
        return tagValues.clone();
    }

    /** The value of a tag, or null. */
    public String tag(String tagName) {
        for (int i = 0; i < tagNames.length; i++) {
            if (tagNames[i].equals(tagName)) {
                return tagValues[i];
            }
        }
        return null;
    }

    @Override
    public String toString() {
        return objectName;
    }

    private static String sanitize(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
            b.append(ok ? c : '_');
        }
        return b.toString().toLowerCase(Locale.ROOT);
    }

    /** ObjectName values with , = : " * ? or a newline must be quoted (topic names have none of these). */
    private static String quoteIfNeeded(String v) {
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (c == ',' || c == '=' || c == ':' || c == '"' || c == '*' || c == '?' || c == '\n' || c == '\\') {
                return javax.management.ObjectName.quote(v);
            }
        }
        return v;
    }
}
