package io.brook.server.topic;

/** A partition of a topic, by name. */
public record TopicPartition(String topic, int partition) {
    @Override
    public String toString() {
        return topic + "-" + partition;
    }
}
