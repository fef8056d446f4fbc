package io.brook.reliability;

import io.brook.server.BrookMain;
import io.brook.storage.file.DurableFiles;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The environment of the scenarios' short versions: brokers started as
 * {@code java -cp <this JVM's classpath> io.brook.server.BrookMain} (the test classpath holds
 * brook-server and its runtime dependencies, from the reactor or the local repository), data in
 * the test's temporary directory, broker logs under {@code target/reliability-tests/}.
 */
final class TestEnv {
    /** The broker JVM's heap: small, as tests run beside each other on small machines. */
    static final long HEAP_MAX = 512L << 20;

    private TestEnv() {
    }

    static Env create(String scenario, Path work) throws Exception {
        Path out = Path.of("target", "reliability-tests", scenario).toAbsolutePath();
        DurableFiles.deleteRecursively(out); // the broker logs are appended to
        Files.createDirectories(out);
        return new Env(launcher(), work, out, Progress.silent(), 42);
    }

    /** Runs the scenario and writes its results.md and results.csv beside the broker logs. */
    static ScenarioResult run(Scenario scenario, Path work) throws Exception {
        Env env = create(scenario.name(), work);
        ScenarioResult result = Scenario.execute(scenario, env);
        Report.write(env.out(), "- the short version run by `mvn verify`", List.of(result));
        return result;
    }

    static BrokerLauncher launcher() {
        List<String> entries = new ArrayList<>();
        for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (!e.isEmpty() && Files.exists(Path.of(e))) {
                entries.add(e);
            }
        }
        return BrokerLauncher.java(String.join(File.pathSeparator, entries), BrookMain.class.getName(), List.of("-Xms64m", "-Xmx512m",
                "-XX:TieredStopAtLevel=1", "-Dio.netty.jfr.enabled=false",
                "-Dorg.slf4j.simpleLogger.showDateTime=true", "-Dorg.slf4j.simpleLogger.logFile=System.out"), HEAP_MAX);
    }
}
