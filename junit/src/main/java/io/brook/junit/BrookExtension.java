package io.brook.junit;

import io.brook.server.Brook;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.util.Optional;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestInstances;
import org.junit.platform.commons.support.AnnotationSupport;
import org.junit.platform.commons.support.HierarchyTraversalMode;
import org.junit.platform.commons.support.ModifierSupport;

/**
 * The extension behind {@link BrookTest}: starts brokers, creates their topics and hands them to
 * fields and parameters marked {@link Broker}.
 *
 * <p>Where a broker lives: with a class-level {@code @BrookTest} (and no {@code perMethod}), in
 * the class's extension context, so one broker serves all its tests and closes after the last;
 * otherwise (per method, or a method-level {@code @BrookTest}) in the test method's context,
 * closed after that test. {@code @Nested} classes share the broker of the enclosing class that
 * carries the annotation. The default broker (name "") is started before the first test it
 * belongs to; named brokers on first use. Brokers are kept in JUnit's context stores (closed by
 * JUnit as {@link AutoCloseable}s), never in static fields, so parallel tests stay apart.
 */
public final class BrookExtension implements BeforeAllCallback, BeforeEachCallback, ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(BrookExtension.class);

    @Override
    public void beforeAll(ExtensionContext context) {
        BrookTest settings = classSettings(context).orElse(null);
        if (settings != null && !settings.perMethod()) {
            broker(context, "");
            injectFields(context, context.getRequiredTestClass(), null, true);
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        if (settings(context).isEmpty()) {
            return;
        }
        broker(context, "");
        TestInstances instances = context.getRequiredTestInstances();
        for (Object instance : instances.getAllInstances()) {
            injectFields(context, instance.getClass(), instance, false);
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Parameter p = parameter.getParameter();
        Class<?> type = p.getType();
        if (parameter.isAnnotated(Broker.class)) {
            return true;
        }
        return type == Brook.class || ReflectiveAdmin.isAdminType(type);
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        if (settings(context).isEmpty()) {
            throw new ParameterResolutionException("a Brook broker needs @BrookTest on the test class or method");
        }
        String name = parameter.findAnnotation(Broker.class).map(Broker::value).orElse("");
        try {
            return valueFor(parameter.getParameter().getType(), broker(context, name));
        } catch (IllegalArgumentException e) {
            throw new ParameterResolutionException(e.getMessage(), e);
        }
    }

    private void injectFields(ExtensionContext context, Class<?> type, Object instance, boolean statics) {
        for (Field f : AnnotationSupport.findAnnotatedFields(type, Broker.class, field -> ModifierSupport.isStatic(field) == statics,
                HierarchyTraversalMode.TOP_DOWN)) {
            if (Modifier.isFinal(f.getModifiers())) {
                throw new ExtensionConfigurationException("@Broker field " + f + " must not be final");
            }
            String name = f.getAnnotation(Broker.class).value();
            try {
                f.setAccessible(true);
                f.set(instance, valueFor(f.getType(), broker(context, name)));
            } catch (IllegalAccessException | RuntimeException e) {
                throw new ExtensionConfigurationException("cannot set @Broker field " + f + ": " + e.getMessage(), e);
            }
        }
    }

    private static Object valueFor(Class<?> type, RunningBroker broker) {
        if (type == String.class) {
            return broker.brook().bootstrapServers();
        }
        if (type == Brook.class) {
            return broker.brook();
        }
        if (ReflectiveAdmin.isAdminType(type)) {
            return broker.admin(type);
        }
        throw new IllegalArgumentException("@Broker gives a String (bootstrap servers), a Brook or an Admin, not a "
                + type.getName());
    }

    /** The broker {@code name} of the context that owns it, started on first use. */
    private static RunningBroker broker(ExtensionContext context, String name) {
        ExtensionContext owner = owner(context);
        BrookTest settings = settings(context).orElseThrow(
                () -> new ExtensionConfigurationException("a Brook broker needs @BrookTest on the test class or method"));
        return owner.getStore(NAMESPACE).getOrComputeIfAbsent("broker:" + name, k -> {
            boolean warmup = "true".equals(context.getConfigurationParameter(ClientWarmup.PARAMETER).orElse("false"));
            ClientWarmup.startOnce(warmup, clientLoader(context));
            return RunningBroker.start(settings, name);
        }, RunningBroker.class);
    }

    /** The loader of the test's classes, which sees the test's kafka-clients if it has one. */
    private static ClassLoader clientLoader(ExtensionContext context) {
        ClassLoader l = context.getTestClass().map(Class::getClassLoader).orElse(null);
        return l != null ? l : BrookExtension.class.getClassLoader();
    }

    /**
     * The context a broker belongs to: the test method's when the method has its own
     * {@code @BrookTest} or the class asks for a broker per method; else the class's.
     */
    private static ExtensionContext owner(ExtensionContext context) {
        Optional<Method> method = context.getTestMethod();
        if (method.isPresent()) {
            if (AnnotationSupport.isAnnotated(method, BrookTest.class)
                    || classSettings(context).map(BrookTest::perMethod).orElse(false)) {
                return context;
            }
        }
        // the class context of the class that carries the annotation (an enclosing one, for
        // @Nested classes: they share its broker)
        ExtensionContext c = context;
        while (c.getParent().isPresent()
                && (c.getTestMethod().isPresent() || !carriesSettings(c.getTestClass()))) {
            ExtensionContext parent = c.getParent().get();
            if (parent.getTestClass().isEmpty()) {
                break; // the engine's context: no class up there carries it
            }
            c = parent;
        }
        return c;
    }

    private static boolean carriesSettings(Optional<Class<?>> testClass) {
        return testClass.isPresent() && AnnotationSupport.isAnnotated(testClass.get(), BrookTest.class);
    }

    /** The method's {@code @BrookTest} if it has one, else its class's. */
    private static Optional<BrookTest> settings(ExtensionContext context) {
        Optional<BrookTest> onMethod = AnnotationSupport.findAnnotation(context.getTestMethod(), BrookTest.class);
        return onMethod.isPresent() ? onMethod : classSettings(context);
    }

    /** The test class's {@code @BrookTest}, else that of the nearest enclosing class ({@code @Nested}). */
    private static Optional<BrookTest> classSettings(ExtensionContext context) {
        return context.getTestClass().flatMap(c ->
                AnnotationSupport.findAnnotation(c, BrookTest.class, context.getEnclosingTestClasses()));
    }
}
