package io.brook.server;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The server's packages and which way their dependencies point. The public API is the package
 * {@code io.brook.server} ({@link Brook} and its builder, {@link BrookMain}); the sub-packages
 * are the broker's insides:
 *
 * <pre>
 * io.brook.server (Brook, BrookMain: the composition root)
 *   -> api, api.fetch, api.group   one handler per API; the handler table with advertised versions
 *   -> launch                       what bin/brook runs besides the broker
 *   -> http                         the HTTP admin listener (/metrics, /health, /ready)
 *   -> cluster                      cluster mode (docs/cluster.md): the only user of the cluster module
 *        api -> network             the handler SPI (ApiHandler, RequestContext, ApiTable)
 *        api -> node                the handlers' shared context, producer ids, the group coordinator
 *        api, node -> topic         the topics and their partition logs
 *        api, network -> security      listeners' TLS and SASL settings, each connection's session
 *        api, node, http, cluster -> metrics   the broker's metrics (Kafka's names, JMX, Prometheus;
 *                                   cluster mode: the controller gauges from its metadata image)
 *        network, node, api -> time the timer of delayed operations
 *        everything -> config       the broker's settings
 * </pre>
 *
 * The network layer knows handlers only through its SPI: nothing of the topics, the logs or the
 * handlers' shared context. Handlers never touch Netty: file-backed records leave the handler as
 * the storage's FileRecords, and the network layer's encoder turns them into file regions.
 *
 * <p>That nothing outside the server uses its sub-packages is checked where such code lives, by
 * the same rule in the modules that depend on the server (compat-tests' and bench's
 * ServerPublicApiTest): their classes are not on this module's class path.
 */
class ArchitectureTest {

    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.brook.server");
    }

    @Test
    void dependenciesInsideTheServerPointOneWay() {
        layeredArchitecture().consideringOnlyDependenciesInAnyPackage("io.brook.server..")
                .layer("Root").definedBy("io.brook.server")
                .layer("Api").definedBy("io.brook.server.api..")
                .layer("Launch").definedBy("io.brook.server.launch..")
                .layer("Http").definedBy("io.brook.server.http..")
                .layer("Metrics").definedBy("io.brook.server.metrics..")
                .layer("Network").definedBy("io.brook.server.network..")
                .layer("Node").definedBy("io.brook.server.node..")
                .layer("Security").definedBy("io.brook.server.security..")
                .layer("Topic").definedBy("io.brook.server.topic..")
                .layer("Time").definedBy("io.brook.server.time..")
                .layer("Config").definedBy("io.brook.server.config..")
                .layer("Fault").definedBy("io.brook.server.fault..")
                .layer("Cluster").definedBy("io.brook.server.cluster..")
                .whereLayer("Cluster").mayOnlyBeAccessedByLayers("Root")
                .whereLayer("Root").mayNotBeAccessedByAnyLayer()
                .whereLayer("Api").mayOnlyBeAccessedByLayers("Root")
                .whereLayer("Launch").mayOnlyBeAccessedByLayers("Root")
                // a dedicated controller (cluster) runs an admin listener of its own
                .whereLayer("Http").mayOnlyBeAccessedByLayers("Root", "Cluster")
                .whereLayer("Metrics").mayOnlyBeAccessedByLayers("Root", "Api", "Node", "Http", "Cluster")
                // the admin listener reports its failed accepts as the Kafka listeners do (AcceptFailures)
                .whereLayer("Network").mayOnlyBeAccessedByLayers("Root", "Api", "Fault", "Http")
                .whereLayer("Fault").mayOnlyBeAccessedByLayers("Root")
                .whereLayer("Node").mayOnlyBeAccessedByLayers("Root", "Api", "Cluster")
                .whereLayer("Security").mayOnlyBeAccessedByLayers("Root", "Api", "Network", "Cluster")
                .whereLayer("Topic").mayOnlyBeAccessedByLayers("Root", "Api", "Node", "Cluster")
                .whereLayer("Time").mayOnlyBeAccessedByLayers("Root", "Api", "Node", "Network")
                .whereLayer("Config").mayOnlyBeAccessedByLayers("Root", "Api", "Node", "Network", "Topic", "Http",
                        "Security", "Cluster")
                .check(classes);
    }

    @Test
    void onlyClusterModeTouchesTheClusterModule() {
        noClasses().that().resideOutsideOfPackage("io.brook.server.cluster..")
                .should().dependOnClassesThat().resideInAnyPackage("io.brook.cluster..", "org.apache.ratis..")
                .because("a single node must not load the cluster module or Ratis: cluster mode is reached through"
                        + " io.brook.server.cluster.ClusterMode only")
                .check(classes);
    }

    @Test
    void handlersDoNotTouchNetty() {
        noClasses().that().resideInAPackage("io.brook.server.api..")
                .should().dependOnClassesThat().resideInAPackage("io.netty..")
                .because("the network layer owns channels, buffers and file regions")
                .check(classes);
    }

    @Test
    void theTopicsAndTheConfigDoNotTouchNetty() {
        noClasses().that().resideInAnyPackage("io.brook.server.topic..", "io.brook.server.config..",
                        "io.brook.server.node..", "io.brook.server.security..")
                .should().dependOnClassesThat().resideInAPackage("io.netty..")
                .check(classes);
    }

    @Test
    void serverPackagesAreFreeOfCycles() {
        slices().matching("io.brook.server.(**)").should().beFreeOfCycles().check(classes);
    }
}
