package io.brook.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs Brook in-process for a test class or a test method:
 *
 * <pre>{@code
 * @BrookTest(topics = "orders:3")
 * class OrderServiceTest {
 *     @Test
 *     void sends(@Broker String bootstrapServers) { ... }
 * }
 * }</pre>
 *
 * On a class, one broker serves every test of the class (started before the first, closed after
 * the last) unless {@link #perMethod()} asks for a fresh one per test; on a method, that method
 * gets its own broker with the method's settings. What a test can receive is listed on
 * {@link Broker}; several brokers in one test are told apart by {@link Broker#value()}, each
 * started on first use with the same settings.
 *
 * <p>Every broker listens on 127.0.0.1 on a port of its own (port 0), and keeps nothing in static
 * state, so test classes and methods may run in parallel (JUnit's parallel mode). The one
 * exception is {@link #bootstrapProperties()}: system properties are the JVM's, shared by every
 * test running at the time.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
@ExtendWith(BrookExtension.class)
public @interface BrookTest {

    /** A fresh broker for each test method instead of one for the whole class. */
    boolean perMethod() default false;

    /** Broker settings by their Kafka names, each {@code "key=value"}, e.g. {@code "num.partitions=3"}. */
    String[] config() default {};

    /**
     * Topics created before the test, each {@code "name"} (one partition) or
     * {@code "name:partitions"}.
     */
    String[] topics() default {};

    /**
     * A data directory that outlives the broker (relative to the working directory, created when
     * missing): a later broker with the same directory, in this run or the next, starts from what
     * the earlier one left. Empty (the default): a temporary directory, deleted when the broker
     * closes. Two brokers never share a directory at the same time (the second fails to start);
     * several brokers of one test get {@code <dataDir>/<name>} for the named ones.
     */
    String dataDir() default "";

    /**
     * System properties set to the default broker's bootstrap servers while it runs, and restored
     * to their earlier values (or cleared) when it closes: for frameworks configured by
     * properties, e.g. {@code "spring.kafka.bootstrap-servers"} (Spring Boot),
     * {@code "kafka.bootstrap.servers"} (Quarkus, Micronaut). System properties are shared by the
     * whole JVM: tests that set the same one must not run at the same time (JUnit's
     * {@code @ResourceLock(Resources.SYSTEM_PROPERTIES)} keeps them apart).
     */
    String[] bootstrapProperties() default {};

    /**
     * Build the brokers with Brook's fault hooks ({@link io.brook.server.Brook#faults()} and the
     * data loss of {@link io.brook.server.Brook#crash()}), on by default. Off: the brokers run
     * exactly as in production, and those hooks refuse with an {@link IllegalStateException}.
     */
    boolean faults() default true;
}
