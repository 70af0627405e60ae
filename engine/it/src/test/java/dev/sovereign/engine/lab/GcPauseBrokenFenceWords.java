package dev.sovereign.engine.lab;

/**
 * The sentences of {@code gc-pause} with the fence switched off, as patterns (ids, tokens and journal numbers
 * vary): the scenario's test and the CLI's test expect the same words, so the CLI prints what the console shows
 * (issue 31 item 13).
 */
public final class GcPauseBrokenFenceWords {
    private GcPauseBrokenFenceWords() {}

    /**
     * Step 7: A's heartbeats may be refused first (then "first writes were refused"), then its stale result is
     * accepted.
     */
    public static final String STALE_WRITE =
            "worker A('s first writes were refused \\(REJECTED #\\d+(, #\\d+)*: [a-z_, ]+\\),"
                    + " but then its|'s) stale result was ACCEPTED: at journal #\\d+ its attempt att_\\w+ \\(token \\d+\\) ended the job"
                    + " (FAILED|COMPLETED)( \\(\\w+\\))?, although B had taken the actor over with token \\d+ at journal #\\d+\\. With the"
                    + " terminal fence switched off, nothing checked that A was still the rightful holder\\.";
    /** Step 8: B's result lost to A's stale write, in plain words. */
    public static final String RIGHTFUL_RESULT_LOST = "worker B's result was lost: the job had already ended"
            + " (FAILED|COMPLETED) by A's stale write \\(journal #\\d+\\), and an ended job is final, so B's write was"
            + " refused\\. B, the rightful holder, committed nothing\\.";
    /** The verdict's sentence. */
    public static final String BROKEN_HEADLINE = "the fence was broken: A's stale write was accepted after B's"
            + " takeover \\(attempt att_\\w+, token \\d+, journal #\\d+\\), and B's rightful result was lost: the job"
            + " ended (FAILED|COMPLETED) by A's stale write";
}
