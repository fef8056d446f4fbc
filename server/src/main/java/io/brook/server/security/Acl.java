package io.brook.server.security;

/**
 * One access control entry, with Kafka's codes: who ({@code principal} {@code User:<name>} or
 * {@code User:*}, from {@code host} or {@code *}) may or may not ({@code permission}) do
 * {@code operation} on the resources {@code resourceType}/{@code resourceName} matched by
 * {@code patternType} (LITERAL: that name, or every name for {@code *}; PREFIXED: names starting
 * with it).
 */
public record Acl(byte resourceType, String resourceName, byte patternType, String principal, String host,
        byte operation, byte permission) {

    // resource types
    public static final byte ANY = 1;
    public static final byte TOPIC = 2;
    public static final byte GROUP = 3;
    public static final byte CLUSTER = 4;
    public static final byte TRANSACTIONAL_ID = 5;
    public static final byte DELEGATION_TOKEN = 6;
    public static final byte USER = 7;
    // pattern types
    public static final byte MATCH = 2;
    public static final byte LITERAL = 3;
    public static final byte PREFIXED = 4;
    // operations
    public static final byte ALL = 2;
    public static final byte READ = 3;
    public static final byte WRITE = 4;
    public static final byte CREATE = 5;
    public static final byte DELETE = 6;
    public static final byte ALTER = 7;
    public static final byte DESCRIBE = 8;
    public static final byte CLUSTER_ACTION = 9;
    public static final byte DESCRIBE_CONFIGS = 10;
    public static final byte ALTER_CONFIGS = 11;
    public static final byte IDEMPOTENT_WRITE = 12;
    public static final byte CREATE_TOKENS = 13;
    public static final byte DESCRIBE_TOKENS = 14;
    public static final byte TWO_PHASE_COMMIT = 15;
    // permission types
    public static final byte DENY = 2;
    public static final byte ALLOW = 3;

    /** The wildcard resource name and principal. */
    public static final String WILDCARD = "*";
    public static final String WILDCARD_PRINCIPAL = "User:*";
    /** The name of the cluster resource. */
    public static final String CLUSTER_NAME = "kafka-cluster";

    /** Whether this entry's pattern covers the resource {@code type}/{@code name}. */
    boolean covers(byte type, String name) {
        if (resourceType != type) {
            return false;
        }
        return switch (patternType) {
            case LITERAL -> resourceName.equals(name) || resourceName.equals(WILDCARD);
            case PREFIXED -> name.startsWith(resourceName);
            default -> false;
        };
    }

    /** Why this entry cannot be created (Kafka's checks), or null. */
    public String problem() {
        if (resourceType < TOPIC || resourceType > USER) {
            return "Invalid resourceType " + resourceType;
        }
        if (patternType != LITERAL && patternType != PREFIXED) {
            return "Invalid patternType " + patternType;
        }
        if (operation < ALL || operation > TWO_PHASE_COMMIT) {
            return "Invalid operation " + operation;
        }
        if (permission != ALLOW && permission != DENY) {
            return "Invalid permissionType " + permission;
        }
        if (resourceName == null || resourceName.isEmpty()) {
            return "Invalid empty resource name";
        }
        if (resourceType == CLUSTER && !resourceName.equals(CLUSTER_NAME)) {
            return "The only valid name for the CLUSTER resource is " + CLUSTER_NAME;
        }
        int colon = principal == null ? -1 : principal.indexOf(':');
        if (colon < 0) {
            return "Could not parse principal from `" + principal + "` (no colon is present separating the"
                    + " principal type from the principal name)";
        }
        if (host == null || host.isEmpty()) {
            return "Host pattern cannot be null or empty";
        }
        return null;
    }
}
