package dev.sovereign.engine.cli;

/**
 * A failure the CLI itself detects (not the engine): bad input found while running a command, or
 * something the command needs that is not there. Carries its exit code and one sentence; the
 * {@link ErrorMapper} prints it. Unchecked, immutable.
 */
final class CliFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int exitCode;
    private final String kind;

    private CliFailure(int exitCode, String kind, String sentence) {
        super(sentence, null, false, false);
        this.exitCode = exitCode;
        this.kind = kind;
    }

    /** Exit 2: what the user gave cannot work. */
    static CliFailure badInput(String sentence) {
        return new CliFailure(ExitCode.BAD_INPUT, "bad_input", sentence);
    }

    /** Exit 3: something the command needs is missing from this installation. */
    static CliFailure unavailable(String sentence) {
        return new CliFailure(ExitCode.STORAGE, "unavailable", sentence);
    }

    int exitCode() {
        return exitCode;
    }

    /** The JSON {@code error} value and, with underscores as spaces, the stderr label. */
    String kind() {
        return kind;
    }
}
