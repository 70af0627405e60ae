package dev.sovereign.console.shell;

import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.base.StorageException;
import java.nio.file.Path;

/**
 * A non-blocking message across the top of the window: what happened, in one sentence, and never a
 * stack trace. Immutable.
 *
 * @param connection true for a message about the live connection, cleared when it recovers
 */
public record Banner(Severity severity, String title, String text, boolean connection) {
    /** Whatever a banner quotes (an error's sentence, a URL), it never shows a secret of a URL. */
    public Banner {
        text = LedgerLocation.redactUrlsIn(text);
    }

    public enum Severity {
        INFO,
        SUCCESS,
        WARNING,
        DANGER
    }

    /** The title of the demo's notice, which goes when the demo stops. */
    public static final String DEMO_RUNNING = "Demo running";

    public static Banner info(String title, String text) {
        return new Banner(Severity.SUCCESS, title, text, false);
    }

    /** The title of the warning shown when this console's supervisor is stopped (Shift+F6). */
    public static final String AUTO_TICK_OFF = "Auto-tick is off";

    /**
     * Said once, across the top, wherever Shift+F6 was pressed: what stops with the supervisor. Goes when
     * auto-tick starts again.
     */
    public static Banner autoTickOff() {
        return new Banner(
                Severity.WARNING,
                AUTO_TICK_OFF,
                "This console's supervisor stopped. Until a supervisor"
                        + " ticks again (F6 for one tick, Shift+F6 to restart, or 'sovereign supervisor'), nothing recovers"
                        + " the runs of dead workers, sweeps expired claims or reports expired leases.",
                false);
    }

    /** Whether this is the auto-tick warning (it goes when auto-tick starts again). */
    public boolean isAutoTickWarning() {
        return severity == Severity.WARNING && AUTO_TICK_OFF.equals(title);
    }

    /** The title of the warning that the disk holding the ledger's file runs low (decision 0606). */
    public static final String DISK_LOW = "Disk nearly full";

    /** Said across the top when the disk holding the ledger's file runs low: how much is left and what to do. */
    public static Banner diskLow(String sentence) {
        return new Banner(Severity.WARNING, DISK_LOW, sentence, false);
    }

    /** Whether this is the low-disk warning (it goes when the disk has room again or another ledger is attached). */
    public boolean isDiskWarning() {
        return severity == Severity.WARNING && DISK_LOW.equals(title);
    }

    /** Whether this is the demo's green notice (it must not outlive the demo). */
    public boolean isDemoNotice() {
        return severity == Severity.SUCCESS && DEMO_RUNNING.equals(title);
    }

    /** The message for a database that could not be attached. */
    public static Banner cannotOpen(Path file, Throwable problem) {
        return cannotOpen(LedgerLocation.file(file), problem);
    }

    /** Why {@code location} could not be opened, in one sentence that never shows a secret of its URL. */
    public static Banner cannotOpen(LedgerLocation location, Throwable problem) {
        if (problem instanceof StorageException se) {
            String title = switch (se.problem()) {
                case MISSING_FILE, MISSING_DIRECTORY -> "Database not found";
                case NOT_OURS -> "Not a Sovereign database";
                case SCHEMA_TOO_NEW -> "Database is newer than this console";
                case BUSY -> "Database is locked";
                case CORRUPT -> "Database is corrupt";
                case READ_ONLY, IO -> "Cannot read the database";
                case COMMIT_OUTCOME_UNKNOWN -> "Write outcome unknown";
                case RETIRED -> "Ledger moved to a server";
                case WENT_BACKWARDS -> "The ledger went backwards";
                case EPOCH_EXHAUSTED -> "Every token of this epoch is issued";
                case A_BACKUP -> "A backup, not a ledger";
            };
            return new Banner(Severity.DANGER, title, LedgerLocation.redactUrlsIn(se.getMessage()), false);
        }
        return new Banner(
                Severity.DANGER,
                "Cannot open the database",
                "Could not open " + location + ": " + oneLine(problem) + ".",
                false);
    }

    /** The message for a live connection that stopped answering; the poller keeps trying. */
    public static Banner connectionTrouble(boolean busy, String detail) {
        return new Banner(
                Severity.WARNING,
                busy ? "Database is locked \u2014 retrying" : "Lost the database \u2014 retrying",
                LedgerLocation.redactUrlsIn(detail) + " The view shows the last state read and recovers by itself.",
                true);
    }

    static String oneLine(Throwable t) {
        String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
        int nl = m.indexOf('\n');
        return LedgerLocation.redactUrlsIn(nl < 0 ? m : m.substring(0, nl)); // a sentence never shows a secret
    }
}
