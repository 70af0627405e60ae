package dev.sovereign.engine.attack.standing;

import dev.sovereign.engine.testing.TestBackend;
import net.jqwik.api.AfterFailureMode;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.lifecycle.AroundPropertyHook;
import net.jqwik.api.lifecycle.PropagationMode;
import net.jqwik.api.lifecycle.PropertyAttributes;
import net.jqwik.api.lifecycle.PropertyExecutionResult;
import net.jqwik.api.lifecycle.PropertyExecutor;
import net.jqwik.api.lifecycle.PropertyLifecycleContext;

/**
 * How many attacks each property of the standing attack suite tries, from which seed, and whether a failure is
 * shrunk — the same in every {@code mvn verify} (a fixed seed: the same tries every time, so a red run is a
 * change in the code, not luck), and overridable from the command line:
 * <ul>
 *   <li>{@code -Dsovereign.attack.seed=N} another seed (jqwik prints the seed of every failing property);</li>
 *   <li>{@code -Dsovereign.attack.tries=N} tries per property (default {@value #SQLITE_TRIES} on SQLite,
 *       {@value #POSTGRES_TRIES} on PostgreSQL: the backend of the property's class, {@link
 *       StandingAttackContract#backend()}; {@code -Dsovereign.long=true} multiplies them by
 *       {@value #LONG_FACTOR});</li>
 *   <li>{@code -Dsovereign.attack.shrinking=BOUNDED} (or FULL) to shrink a failing attack to a smaller one (off by
 *       default: every try builds a ledger, and the failure already prints the exact statements);</li>
 *   <li>{@code -Dsovereign.attack.survey=true} records every violation instead of failing at the first, and prints a
 *       tally per property and rule ({@link Survey}).</li>
 * </ul>
 * jqwik's own settings ({@code -Djqwik.reporting.onlyfailures=false}, ...) apply too, from the command line or
 * {@code src/test/resources/junit-platform.properties}, which keeps jqwik's failure database in {@code target/}.
 */
public final class AttackSettings implements AroundPropertyHook {
    static final String DEFAULT_SEED = "20261202";
    static final int SQLITE_TRIES = 15;
    static final int POSTGRES_TRIES = 6;
    static final int LONG_FACTOR = 25;

    static final boolean SURVEY = Boolean.getBoolean("sovereign.attack.survey");

    /** Registered on the test class, it must reach the class's properties. */
    @Override
    public PropagationMode propagateTo() {
        return PropagationMode.ALL_DESCENDANTS;
    }

    @Override
    public PropertyExecutionResult aroundProperty(PropertyLifecycleContext context, PropertyExecutor property) {
        PropertyAttributes attributes = context.attributes();
        attributes.setSeed(System.getProperty("sovereign.attack.seed", DEFAULT_SEED));
        attributes.setTries(tries(((StandingAttackContract) context.testInstance()).backend()));
        attributes.setShrinking(ShrinkingMode.valueOf(System.getProperty("sovereign.attack.shrinking", "OFF")));
        attributes.setEdgeCases(
                EdgeCasesMode.NONE); // the combined edge cases of an attack are a few hundred look-alikes
        attributes.setAfterFailure(AfterFailureMode.PREVIOUS_SEED);
        return property.execute();
    }

    static int tries(TestBackend backend) {
        Integer given = Integer.getInteger("sovereign.attack.tries");
        if (given != null) {
            return given;
        }
        int base = backend.name().equals("postgres") ? POSTGRES_TRIES : SQLITE_TRIES;
        return Boolean.getBoolean("sovereign.long") ? base * LONG_FACTOR : base;
    }
}
