package io.brook.storage.config;

/** A topic or broker setting with an unknown name or a value out of its range (Kafka's INVALID_CONFIG). */
public final class InvalidConfigException extends IllegalArgumentException {
    private final String name;

    public InvalidConfigException(String name, String value, String reason) {
        super("Invalid value '" + value + "' for configuration " + name + ": " + reason);
        this.name = name;
    }

    /** The setting at fault. */
    public String name() {
        return name;
    }
}
