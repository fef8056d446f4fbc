package io.brook.junit.figures;

/**
 * Kafka's {@code KafkaClusterTestKit} (artifact kafka-test-common-runtime) with one combined
 * broker and controller, called reflectively: it is on the class path of the Kafka variant of
 * {@link StartupFigures} only, never a dependency of this module.
 */
final class KafkaTestKit implements AutoCloseable {
    private final Object kit;

    private KafkaTestKit(Object kit) {
        this.kit = kit;
    }

    /** Builds, formats and starts a one-node cluster and waits until its broker is ready. */
    static KafkaTestKit start() throws Exception {
        Class<?> nodesBuilderType = Class.forName("org.apache.kafka.common.test.TestKitNodes$Builder");
        Object nodesBuilder = nodesBuilderType.getConstructor().newInstance();
        nodesBuilderType.getMethod("setCombined", boolean.class).invoke(nodesBuilder, true);
        nodesBuilderType.getMethod("setNumControllerNodes", int.class).invoke(nodesBuilder, 1);
        nodesBuilderType.getMethod("setNumBrokerNodes", int.class).invoke(nodesBuilder, 1);
        Object nodes = nodesBuilderType.getMethod("build").invoke(nodesBuilder);
        Class<?> kitBuilderType = Class.forName("org.apache.kafka.common.test.KafkaClusterTestKit$Builder");
        Object kitBuilder = kitBuilderType.getConstructor(nodes.getClass()).newInstance(nodes);
        Object kit = kitBuilderType.getMethod("build").invoke(kitBuilder);
        KafkaTestKit cluster = new KafkaTestKit(kit);
        try {
            kit.getClass().getMethod("format").invoke(kit);
            kit.getClass().getMethod("startup").invoke(kit);
            kit.getClass().getMethod("waitForReadyBrokers").invoke(kit);
        } catch (Exception e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    String bootstrapServers() throws ReflectiveOperationException {
        return (String) kit.getClass().getMethod("bootstrapServers").invoke(kit);
    }

    @Override
    public void close() throws Exception {
        kit.getClass().getMethod("close").invoke(kit);
    }
}
