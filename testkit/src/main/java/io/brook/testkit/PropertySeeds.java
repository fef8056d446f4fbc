package io.brook.testkit;

import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;

import net.jqwik.api.Property;
import net.jqwik.api.lifecycle.AroundPropertyHook;
import net.jqwik.api.lifecycle.PropagationMode;
import net.jqwik.api.lifecycle.PropertyAttributes;
import net.jqwik.api.lifecycle.PropertyExecutionResult;
import net.jqwik.api.lifecycle.PropertyExecutor;
import net.jqwik.api.lifecycle.PropertyLifecycleContext;

/**
 * Makes every jqwik property of a build reproducible, and lets a developer explore on purpose.
 * Registered for all properties through {@code META-INF/services}: every module with testkit on
 * its test class path gets it.
 *
 * <ul>
 *   <li>By default a property keeps the {@code seed} it names; one that names none gets a seed
 *       derived from its class and method names. Two runs of the same code try the same values.</li>
 *   <li>{@code -Dbrook.jqwik.seed=random}: every property draws a fresh random seed (jqwik prints
 *       the seed of a failing property); {@code -Dbrook.jqwik.seed=N}: every property uses N.</li>
 *   <li>{@code -Dbrook.jqwik.tries.factor=K}: every property runs K times its tries.</li>
 * </ul>
 */
public final class PropertySeeds implements AroundPropertyHook {

    /** System property: {@code random}, or a seed for every property. */
    public static final String SEED = "brook.jqwik.seed";
    /** System property: how many times its tries each property runs. */
    public static final String TRIES_FACTOR = "brook.jqwik.tries.factor";

    /** jqwik's tries for a property that names none (its {@code jqwik.tries.default}). */
    private static final int JQWIK_DEFAULT_TRIES = 1000;

    @Override
    public PropagationMode propagateTo() {
        return PropagationMode.ALL_DESCENDANTS;
    }

    @Override
    public PropertyExecutionResult aroundProperty(PropertyLifecycleContext context, PropertyExecutor property) {
        PropertyAttributes attributes = context.attributes();
        String seed = System.getProperty(SEED, "");
        if (seed.equals("random")) {
            attributes.setSeed(Property.SEED_NOT_SET);
        } else if (!seed.isEmpty()) {
            attributes.setSeed(seed);
        } else if (attributes.seed().filter(s -> !s.isEmpty()).isEmpty()) {
            attributes.setSeed(seedFromName(context.containerClass().getName() + "#" + context.targetMethod().getName()));
        }
        int factor = Integer.getInteger(TRIES_FACTOR, 1);
        if (factor > 1) {
            attributes.setTries(factor * attributes.tries().orElse(JQWIK_DEFAULT_TRIES));
        }
        return property.execute();
    }

    static String seedFromName(String name) {
        CRC32 crc = new CRC32();
        crc.update(name.getBytes(StandardCharsets.UTF_8));
        return Long.toString(crc.getValue());
    }
}
