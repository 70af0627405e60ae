package dev.sovereign.engine.reliability.fuzz;

/**
 * Something the fuzzer calls with bad input and judges: the public engine API
 * ({@link EngineApiTarget}) or a command line ({@link CliTarget}: a function from arguments to exit
 * code and stderr). Implementations must not throw: every outcome is a {@link Verdict}.
 */
public interface FuzzTarget {
    String name();

    /** Builds one call from {@code inputs}, makes it, and says what happened. */
    Verdict call(BadInputs inputs);
}
