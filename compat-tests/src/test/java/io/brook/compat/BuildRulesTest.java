package io.brook.compat;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The rules of the build that the compiler does not enforce, checked on the main classes of the
 * broker's modules (this module's tests see all of them):
 *
 * <ul>
 *   <li>dependencies point one way: wire, then storage, then coordinator, then server;</li>
 *   <li>the broker runs without a Kafka client: kafka-clients is for tests and bench only;</li>
 *   <li>no main class uses what only tests may: testkit, JUnit, AssertJ, jqwik.</li>
 * </ul>
 *
 * The Maven enforcer (execution ban-client-dependencies in the parent pom) keeps kafka-clients and
 * slf4j-simple off these modules' compile and run-time class paths; this test keeps their code
 * from needing them.
 */
class BuildRulesTest {

    private static final String WIRE = "io.brook.wire..";
    private static final String STORAGE = "io.brook.storage..";
    private static final String COORDINATOR = "io.brook.coordinator..";
    private static final String SERVER = "io.brook.server..";

    private static JavaClasses broker;

    @BeforeAll
    static void importMainClasses() {
        broker = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.brook.wire", "io.brook.storage", "io.brook.coordinator", "io.brook.server");
    }

    /** The main classes of one module; never none, which would let every rule pass. */
    private static JavaClasses module(String packages) {
        JavaClasses classes = broker.that(JavaClass.Predicates.resideInAPackage(packages));
        assertThat(classes.size()).as("main classes in " + packages).isGreaterThan(0);
        return classes;
    }

    @Test
    void everyModuleHasClassesToCheck() {
        int total = 0;
        for (String packages : new String[] {WIRE, STORAGE, COORDINATOR, SERVER}) {
            total += module(packages).size();
        }
        assertThat(broker.size()).isEqualTo(total);
    }

    @Test
    void wireDependsOnNoOtherModule() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage(STORAGE, COORDINATOR, SERVER)
                .check(module(WIRE));
    }

    @Test
    void storageDependsOnNeitherCoordinatorNorServer() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage(COORDINATOR, SERVER)
                .check(module(STORAGE));
    }

    @Test
    void coordinatorDoesNotDependOnServer() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage(SERVER)
                .check(module(COORDINATOR));
    }

    @Test
    void brokerNeedsNoKafkaClient() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage("org.apache.kafka..")
                .check(module("io.brook.."));
    }

    @Test
    void brokerUsesNoTestLibrary() {
        noClasses().should().dependOnClassesThat()
                .resideInAnyPackage("io.brook.testkit..", "org.junit..", "org.assertj..", "net.jqwik..")
                .check(module("io.brook.."));
    }
}
