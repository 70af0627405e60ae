package dev.sovereign.console.ledger;

/** How the console's connection to the database is doing, for the status bar. */
public enum Health {
    /** No database attached. */
    DETACHED,
    /** Attached; the first read has not come back yet. */
    CONNECTING,
    /** The last poll succeeded. */
    CONNECTED,
    /** The last poll found the database locked past the reader's bound; the poller keeps trying. */
    BUSY,
    /** The last poll failed for another reason (file gone, I/O error); the poller keeps trying. */
    FAILING
}
