package dev.sovereign.console.feature.lab;

import dev.sovereign.console.ledger.Formats;
import dev.sovereign.engine.admin.EventSentences;
import dev.sovereign.engine.admin.JournalEntry;
import dev.sovereign.engine.admin.LeaseRow;
import dev.sovereign.engine.lab.Check;
import dev.sovereign.engine.lab.LabStep;
import dev.sovereign.engine.lab.LabVerdict;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Every sentence the Lab page says, in one place: the verdict and its checks, the narrative's steps,
 * what the ledger says of each worker, and what each lab action did. Pure functions of their
 * arguments (no JavaFX at all), so the wording is tested without a toolkit and a change of phrasing
 * happens here, not in the view or the view model. Thread-safe (stateless).
 */
public final class LabSentences {
    /**
     * The lab page's line while a server ledger that is not a lab sandbox is attached: the lab never adds its
     * actors and processes to a real ledger (decision 0909); an empty database or schema becomes a sandbox.
     */
    static String labNeedsASandbox(String server) {
        return "The lab runs on a server only in a lab sandbox, and " + server + " is not one: it is left untouched."
                + " Make one from an empty database (CREATE DATABASE lab_sandbox) or an empty schema (CREATE SCHEMA"
                + " lab, then ?currentSchema=lab in the URL): sovereign lab SCENARIO --db URL turns it into a sandbox"
                + " and runs there; attach it here to run workers and scenarios from this page. Or open the SQLite"
                + " lab sandbox.";
    }

    /** While the console asks the attached server whether it is a lab sandbox. */
    static String checkingServer(String server) {
        return "Asking " + server + " whether it is a lab sandbox\u2026";
    }

    /** Every lab action needs a database. */
    public static final String NO_DATABASE = "Attach a database first, or open the lab sandbox.";
    /** The live panel before the first refused write. */
    public static final String NO_REJECTION_YET = "No write has been refused on this database yet.";
    /** The live panel while a scenario runs and nothing of it has been refused yet (it has no actor yet). */
    public static final String NO_REJECTION_IN_THIS_RUN = "No write of this scenario has been refused yet.";
    /** Reset on a database that is not a sandbox. */
    public static final String RESET_NEEDS_A_SANDBOX = "Reset works on the lab sandbox only; this database is not one.";

    /** What the paces do (decision 0117), for the pace chooser's tooltip. */
    public static final String PACE_NOTE = "Real time: the scenario plays through. Step by step: the lab waits for"
            + " Next \u25B6 (Space or \u2192) before each of its own actions it can hold. Slow motion: it waits "
            + LabScenarioRun.SLOW_PAUSE.toSeconds() + " s there. The workers are real processes: their TTLs and jobs"
            + " run on in real time while the lab waits, and a step marked \u201creal time\u201d never waits.";

    private LabSentences() {}

    /** Above a worker's output lines: whose. */
    static String outputTitle(String worker) {
        return "Output of " + worker;
    }

    /** What the output pane keeps. */
    static final String OUTPUT_NOTE =
            "Its last " + LabWorkerItem.RECENT_LINES + " lines, newest last, as it prints them";

    /** The line above the steps that says what the chosen pace does, or empty in real time. */
    static String paceNote(LabScenarioRun.Pace pace) {
        return switch (pace) {
            case REAL_TIME -> "";
            case STEP ->
                "Step by step: the lab waits for you (Next \u25B6, Space or \u2192) before each step it can"
                        + " hold. The workers' TTLs and jobs run on in real time; a step marked \u201creal time\u201d"
                        + " follows on its own.";
            case SLOW ->
                "Slow motion: the lab waits " + LabScenarioRun.SLOW_PAUSE.toSeconds() + " s before each"
                        + " step it can hold. The workers' TTLs and jobs run on in real time; a step marked \u201creal"
                        + " time\u201d follows on its own.";
        };
    }

    /** Under the step the run waits before. */
    static String heldLine(LabScenarioRun.Pace pace) {
        return pace == LabScenarioRun.Pace.SLOW
                ? "the lab waits " + LabScenarioRun.SLOW_PAUSE.toSeconds()
                        + " s before this step (Next \u25B6 goes now)"
                : "the lab waits for you: Next \u25B6, Space or \u2192";
    }

    /** After a pending step's title when the run cannot wait before it: it must follow in real time. */
    static final String REAL_TIME_TAG = "  \u00b7 real time";

    // ---- the verdict and its checks ----

    /** The verdict's headline as a sentence: capitalised, with a full stop. */
    public static String headline(LabVerdict v) {
        return capitalise(v.headline()) + ".";
    }

    /** {@code gc-pause: held. The fence held: ….} — the message when a run ends with a verdict. */
    public static String runEnded(String scenario, LabVerdict v) {
        return scenario + ": " + v.verdict().code() + ". " + headline(v);
    }

    /** What the checks were read from: the database, the actor, and whether the fence was off. */
    public static String checksTitle(LabVerdict v) {
        return "What the checker read from the journal and the ledger of "
                + (v.location().isFile()
                        ? v.location().file().orElseThrow().getFileName()
                        : v.location().withoutSecrets())
                + " (actor " + v.actor() + ")"
                + (v.faultInjected() ? ", with the terminal fence switched OFF in its workers" : "");
    }

    /** {@code ok} or {@code failed}. */
    public static String checkMark(Check c) {
        return c.passed() ? "ok" : "failed";
    }

    /** {@code safety} or {@code setup}. */
    public static String checkKind(Check c) {
        return c.kind().name().toLowerCase(Locale.ROOT);
    }

    /** A narrative step's title; a step the run never reached says so. */
    public static String stepTitle(LabStep s) {
        return s.title() + (s.status() == LabStep.Status.SKIPPED ? "  (not reached)" : "");
    }

    // ---- a scenario run ----

    public static String runStarted(String scenario, boolean fenceOff) {
        return "Running " + scenario + (fenceOff ? " with the terminal fence switched OFF" : "")
                + ": watch Leases (Ctrl+1), Timeline (Ctrl+2) and Rejections (Ctrl+3) as it goes.";
    }

    public static String runStopped(String scenario) {
        return scenario + " was stopped; every process it started has been stopped too.";
    }

    public static String runFailed(String scenario, Throwable e) {
        return scenario + " could not run: " + oneLine(e);
    }

    // ---- workers: their state in the ledger's words ----

    /** What the ledger says of one worker, and whether that means it hosts its actor. */
    public record WorkerLedger(String text, boolean hosts) {}

    /**
     * What the ledger says of a living worker: it hosts its actor (with which token), or it waits and
     * for whom.
     *
     * @param identity the worker's fencing identity, or null before it printed its {@code started} line
     * @param row      its actor's lease in the latest snapshot, or null when there is none (yet)
     */
    public static WorkerLedger workerLedger(String actor, String identity, LeaseRow row) {
        if (identity == null || row == null) {
            return new WorkerLedger(identity == null ? "starting\u2026" : "", false);
        }
        if (!row.isFree() && row.holder().identity().equals(identity)) {
            return new WorkerLedger("hosts " + actor + " \u00b7 token " + row.token(), true);
        }
        if (row.isFree()) {
            return new WorkerLedger("waits: " + actor + " is free", false);
        }
        return new WorkerLedger("waits: " + row.holder().name() + " holds token " + row.token(), false);
    }

    /**
     * What the ledger says of a worker, knowing whether it is paused (SIGSTOP or cooperatively): a paused
     * worker waits for nothing; it is frozen and still believes it holds the token it last held, whatever
     * the ledger says now.
     *
     * @param believedToken the token the ledger last showed it holding before it was paused, or null
     */
    public static WorkerLedger workerLedger(
            String actor, String identity, LeaseRow row, boolean paused, Long believedToken) {
        WorkerLedger ledger = workerLedger(actor, identity, row);
        if (!paused || identity == null) {
            return ledger;
        }
        String belief = believedToken == null
                ? "paused: it held no token of " + actor
                : "paused: still believes it holds token " + believedToken;
        if (row == null) {
            return new WorkerLedger(belief, false);
        }
        if (ledger.hosts()) {
            return new WorkerLedger(
                    believedToken != null && believedToken == row.token()
                            ? belief + " (valid until its lease expires)"
                            : belief,
                    true);
        }
        return new WorkerLedger(
                belief + "; the ledger says "
                        + (row.isFree() ? actor + " is free" : row.holder().name() + " holds token " + row.token()),
                false);
    }

    /** The label of a worker started by hand on the Lab page; scenario workers are plain {@code worker A}. */
    public static String manualWorkerLabel(String letter) {
        return "manual worker " + letter;
    }

    /** How a worker process ended, from its exit code: 137 (or 9) is a SIGKILL. */
    public static String endedHow(int exitCode) {
        return exitCode == 137 || exitCode == 9 ? "killed (SIGKILL)" : exitCode == 0 ? "exited 0" : "exit " + exitCode;
    }

    /** The pause button's word for a worker in {@code state}. */
    public static String pauseButton(LabWorkerItem.State state) {
        return state == LabWorkerItem.State.PAUSED ? "Resume" : "Pause";
    }

    /**
     * The watched actor's lease right now: who hosts it, token, time left; empty when there is no actor.
     *
     * @param row its lease in the latest snapshot, or null when the database has no such actor yet
     */
    public static String liveLease(String actor, LeaseRow row, long now) {
        if (actor.isEmpty()) {
            return "";
        }
        if (row == null) {
            return actor + ": no such actor yet";
        }
        if (row.isFree()) {
            return actor + ": free, nobody hosts it";
        }
        long left = row.remainingAt(now);
        return actor + ": hosted by " + row.holder().name() + " \u00b7 token " + row.token() + " \u00b7 "
                + (left <= 0 ? "EXPIRED, free to take over" : "expires in " + Formats.duration(left));
    }

    /**
     * The live panel's newest refusal. While a scenario runs, and after it, only its own: its fresh actor's
     * refusals, so one run's refusal never shows during the next (issue 31 item 14); without a scenario, the
     * database's newest.
     *
     * @param newestFirst   the database's refusals, newest first
     * @param scenarioActor the running (or last) scenario's actor, or empty
     * @param running       whether a scenario runs (before it chose its actor, nothing of it was refused)
     */
    public static String liveRejection(List<JournalEntry> newestFirst, String scenarioActor, boolean running) {
        if (scenarioActor.isEmpty()) {
            if (running) {
                return NO_REJECTION_IN_THIS_RUN;
            }
            return newestFirst.isEmpty() ? NO_REJECTION_YET : newestFirst.get(0).sentence();
        }
        return newestFirst.stream()
                .filter(e -> scenarioActor.equals(e.actorLane()))
                .findFirst()
                .map(JournalEntry::sentence)
                .orElse(running ? NO_REJECTION_IN_THIS_RUN : "No write of " + scenarioActor + " was refused.");
    }

    /**
     * A stale write the ledger accepted for the scenario's actor, or empty: a terminal commit ({@code
     * ATTEMPT_DONE}) of an attempt the journal had already superseded, stolen or recovered. The fence refuses
     * exactly those; one shows only when the run switched the fence off, and the refusal that follows it (the
     * rightful holder's) must not read as the whole story (issue 31 item 13).
     *
     * @param events the journal the console has seen, oldest first
     */
    public static String staleCommit(List<JournalEntry> events, String scenarioActor) {
        if (scenarioActor.isEmpty()) {
            return "";
        }
        Map<String, JournalEntry> endedEarlier = new HashMap<>();
        for (JournalEntry e : events) {
            if (!scenarioActor.equals(e.actorLane()) || !"attempt".equals(e.resourceType())) {
                continue;
            }
            switch (e.kind()) {
                case "ATTEMPT_SUPERSEDED", "ATTEMPT_STOLEN", "ATTEMPT_RECOVERED" ->
                    endedEarlier.putIfAbsent(e.resourceId(), e);
                case "ATTEMPT_DONE" -> {
                    JournalEntry before = endedEarlier.get(e.resourceId());
                    if (before != null) {
                        return "Attempt " + e.resourceId() + (e.token() == null ? "" : " (token " + e.token() + ")")
                                + (e.process() == null
                                        ? ""
                                        : " of " + e.process().name())
                                + " committed its result at journal #" + e.seq() + " although it had been "
                                + switch (before.kind()) {
                                    case "ATTEMPT_STOLEN" -> "stripped of its fence";
                                    case "ATTEMPT_RECOVERED" -> "recovered by the supervisor";
                                    default -> "superseded";
                                }
                                + " at journal #" + before.seq() + ": the stale write was accepted.";
                    }
                }
                default -> {
                    // other events say nothing about a stale commit
                }
            }
        }
        return "";
    }

    // ---- what an action on a worker did ----

    public static String workerStarted(
            String label, long pid, String actor, Duration ttl, Duration offset, boolean fenceOff) {
        return "Started " + label + " (pid " + pid + ") for " + actor + ", TTL " + ttl.toSeconds() + " s"
                + (offset.isZero() ? "" : ", clock " + LabWorkerItem.offsetText(offset))
                + (fenceOff ? ", with the terminal fence switched OFF" : "") + ".";
    }

    public static String jobGiven(String actor, Duration length, String jobId) {
        return "Gave " + actor + " a " + length.toSeconds() + " s job (" + jobId + "): the worker hosting " + actor
                + " runs it now. Pause that worker while it runs to see its late write refused.";
    }

    /** A worker frozen: by SIGSTOP where the OS has it, else cooperatively. */
    public static String paused(String label, boolean stopSignals) {
        return "Paused " + label + (stopSignals ? " with SIGSTOP" : " (cooperatively)")
                + ": no heartbeat, no writes. Its lease expires within its TTL and another worker may take over.";
    }

    public static String resumed(String label, boolean stopSignals) {
        return "Resumed " + label + (stopSignals ? " with SIGCONT" : "") + ": whatever it still"
                + " believes it holds is checked by the ledger at its next write.";
    }

    public static String killed(String label) {
        return "Killed " + label
                + " with SIGKILL: it released nothing. Its lease and attempt expire; the supervisor recovers its job.";
    }

    public static String stopped(String label) {
        return "Stopped " + label + ": it released its lease and exited.";
    }

    public static String skewed(String label, Duration offset) {
        return label + "'s clock now reads "
                + (offset.isZero()
                        ? "the true time"
                        : LabWorkerItem.offsetText(offset) + (offset.isNegative() ? " behind" : " ahead"))
                + ". A fast clock may take a lease over early; it can never commit for the old holder.";
    }

    /** Empty where SIGSTOP exists; else what a pause does instead. */
    public static String platformNote(boolean stopSignals) {
        return stopSignals
                ? ""
                : "This system has no SIGSTOP (or the lab was told not to use it), so Pause is"
                        + " cooperative: the worker stops working and heartbeating until resumed, so its lease still expires"
                        + " and another worker can take over, but a step already in progress (a job's last write) still"
                        + " finishes. On Linux and macOS the pause is a real SIGSTOP, like a long GC pause.";
    }

    // ---- the form's choices ----

    /** {@code TTL 2 s}. */
    public static String ttlChoice(Duration d) {
        return d == null ? "" : "TTL " + d.toSeconds() + " s";
    }

    /** {@code true clock}, {@code clock +5 s}. */
    public static String clockChoice(Duration d) {
        return d == null ? "" : d.isZero() ? "true clock" : "clock " + LabWorkerItem.offsetText(d);
    }

    /** A skew menu item: {@code true clock}, {@code +5 s (ahead)}, {@code −5 s (behind)}. */
    public static String skewChoice(Duration d) {
        return d.isZero() ? "true clock" : LabWorkerItem.offsetText(d) + (d.isNegative() ? " (behind)" : " (ahead)");
    }

    // ---- the sandbox ----

    public static String sandboxOpened(Path sandbox) {
        return "Attached the lab sandbox " + sandbox.getFileName() + ". Start workers, or run a scenario.";
    }

    public static String sandboxReset(Path fresh) {
        return "A fresh sandbox " + fresh.getFileName() + " is attached; the old one and its workers are gone.";
    }

    // ---- plumbing ----

    /** {@code Starting worker A failed: <first line of the problem>}. */
    public static String failed(String what, Throwable e) {
        return what + " failed: " + oneLine(e);
    }

    /** The first line of a problem's message, or its type when it has none. */
    public static String oneLine(Throwable e) {
        String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }

    /** A capital first letter, but an id ({@code proc_bob}) as the ledger writes it. */
    static String capitalise(String s) {
        return EventSentences.capitalised(s);
    }
}
