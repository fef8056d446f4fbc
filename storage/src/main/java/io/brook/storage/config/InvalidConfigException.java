package io.brook.storage.config;

/** A topic or broker setting with an unknown name or a value out of its range (Kafka's INVALID_CONFIG). */
public final class InvalidConfigException extends IllegalArgumentException {
    private final String name;

    public InvalidConfigException(String name, String value, String reason) {
        this(name, "Invalid value '" + value + "' for configuration " + name + ": " + reason);
    }

    private InvalidConfigException(String name, String message) {
        super(message);
        this.name = name;
    }

    /** A refusal of the setting {@code name} whose message is {@code message} as it stands (no value quoted). */
    public static InvalidConfigException withMessage(String name, String message) {
        return new InvalidConfigException(name, message);
    }

    /** The setting at fault. */
    public String name() {
        return name;
    }
}
