package io.brook.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a test's field or parameter to receive one of the {@link BrookTest} brokers, by its type:
 * <ul>
 *   <li>{@code String}: the broker's bootstrap servers ({@code 127.0.0.1:port});</li>
 *   <li>{@link io.brook.server.Brook}: the broker itself (its fault hooks, restart, topics);</li>
 *   <li>{@code org.apache.kafka.clients.admin.Admin} (or {@code AdminClient}): an admin client
 *       connected to it, closed with the broker. kafka-clients is the test's dependency, not
 *       this module's: the client is created reflectively, so any kafka-clients version on the
 *       test class path works.</li>
 * </ul>
 * Parameters of type {@code Brook} or {@code Admin} need no annotation; a {@code String}
 * parameter and every field do. Static fields are set before the class's first test (for a
 * broker per class), instance fields before each test.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.PARAMETER})
public @interface Broker {
    /** Which broker, when a test runs several: each distinct name is a broker of its own. */
    String value() default "";
}
