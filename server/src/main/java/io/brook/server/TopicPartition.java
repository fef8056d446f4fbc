package io.brook.server;

/** A partition of a topic, by name. */
record TopicPartition(String topic, int partition) {
    @Override
    public String toString() {
        return topic + "-" + partition;
    }
}
