package dev.sovereign.engine.testing;

import dev.sovereign.engine.base.Refusal;

/** The refusal a rule threw, or an {@link AssertionError} when it let the call through. */
public final class Refused {
    private Refused() {}

    public static Refusal by(Runnable rule) {
        try {
            rule.run();
        } catch (Refusal r) {
            return r;
        }
        throw new AssertionError("the rule let it through; expected a refusal");
    }
}
