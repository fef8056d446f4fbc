package io.brook.bench;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.Test;

/**
 * The bench (benchmarks and runner) uses the server through its public API only: {@code io.brook.server} ({@code Brook} and its
 * builder; {@code HotPathMetrics}, the benchmark seam over its metrics). The server's sub-packages are its insides, free to change.
 */
class ServerPublicApiTest {

    @Test
    void shouldUseNoneOfTheServersSubPackages() {
        noClasses().that().resideOutsideOfPackage("io.brook.server..")
                .should().dependOnClassesThat().resideInAnyPackage("io.brook.server.*..")
                .check(new ClassFileImporter().importPackages("io.brook.bench"));
    }
}
