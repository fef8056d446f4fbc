package io.brook.junit;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Map;

/**
 * Creates kafka-clients' {@code Admin} through its static factory, {@code Admin.create(Map)},
 * without a compile-time dependency: the client library is the test's, in whatever version it
 * chose (the factory has been there since kafka-clients 2.4).
 */
final class ReflectiveAdmin {
    static final String ADMIN = "org.apache.kafka.clients.admin.Admin";
    static final String ADMIN_CLIENT = "org.apache.kafka.clients.admin.AdminClient";

    private ReflectiveAdmin() {
    }

    /** True for kafka-clients' admin types (by name: the class may not be on this module's path). */
    static boolean isAdminType(Class<?> type) {
        return type.getName().equals(ADMIN) || type.getName().equals(ADMIN_CLIENT);
    }

    static AutoCloseable create(ClassLoader loader, String bootstrapServers) {
        try {
            Class<?> admin = Class.forName(ADMIN, true, loader);
            Method create = admin.getMethod("create", Map.class);
            return (AutoCloseable) create.invoke(null, Map.<String, Object>of("bootstrap.servers", bootstrapServers));
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("an Admin needs kafka-clients on the test class path", e);
        } catch (InvocationTargetException e) {
            throw new IllegalStateException("could not create an Admin for " + bootstrapServers, e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("kafka-clients' Admin.create(Map) is not usable", e);
        }
    }
}
