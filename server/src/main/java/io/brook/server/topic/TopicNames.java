package io.brook.server.topic;

/** Topic-name rules shared by every API that creates or looks up topics (Kafka's, unchanged). */
public final class TopicNames {

    static final int MAX_NAME_LENGTH = 249;
    public static final String CONSUMER_OFFSETS = "__consumer_offsets";
    public static final String TRANSACTION_STATE = "__transaction_state";

    private TopicNames() {
    }

    /** Null when {@code name} is a legal topic name, else why not. */
    public static String invalidNameReason(String name) {
        if (name == null || name.isEmpty()) {
            return "Topic name is empty";
        }
        if (name.equals(".") || name.equals("..")) {
            return "Topic name cannot be \".\" or \"..\"";
        }
        if (name.length() > MAX_NAME_LENGTH) {
            return "Topic name is longer than " + MAX_NAME_LENGTH + " characters";
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '.' || c == '_' || c == '-';
            if (!ok) {
                return "Topic name \"" + name + "\" is illegal: it contains a character other than ASCII"
                        + " alphanumerics, '.', '_' and '-'";
            }
        }
        return null;
    }

    public static boolean isInternal(String name) {
        return CONSUMER_OFFSETS.equals(name) || TRANSACTION_STATE.equals(name);
    }
}
