package dev.sovereign.engine.spi.tools;

/**
 * A copy of a ledger that is refused before anything was written: the target is not empty, the source is a
 * sandbox, a URL, not a Sovereign ledger, newer than this code, or holds data the target would not keep. Its
 * {@link #category()} is a short snake_case code for the CLI's label and JSON; the message is one sentence.
 * Immutable.
 */
public final class LedgerCopyRefusal extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String category;

    public LedgerCopyRefusal(String category, String sentence) {
        super(sentence, null, false, false);
        this.category = category;
    }

    public String category() {
        return category;
    }
}
