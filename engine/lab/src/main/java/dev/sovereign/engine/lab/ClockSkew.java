package dev.sovereign.engine.lab;

import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.journal.FenceEvent;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.run.Attempt;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code clock-skew}: a worker whose clock runs ahead ({@code --clock-offset}) believes the live
 * holder's lease expired.
 *
 * <p>On SQLite each process stamps its writes with its own clock, so the skewed worker takes the actor
 * over early, while the holder is alive and heartbeating. Time decides when a takeover is allowed, so
 * the skew costs the holder its lease; tokens decide who may commit, so the holder's writes are
 * refused and nothing is committed twice.
 *
 * <p>On PostgreSQL the <b>server's</b> clock decides every expiry (decision 0900): the skewed worker
 * asks for the lease (by its clock it has expired) and the server refuses it, every time, while the
 * holder keeps it and finishes its job. The scenario runs the same workers and shows that; its verdict
 * is read from the journal like every other's (decision 0909).
 */
final class ClockSkew implements Scenario {
    static final Duration JOB = Duration.ofSeconds(3);
    static final Duration SKEW = Duration.ofSeconds(5);
    private static final ScenarioInfo INFO = Scenario.info(
            "clock-skew",
            "A fast clock can steal a lease early, never a commit",
            "Worker A hosts the actor and runs a job, renewing its lease every third of a second. Worker B starts"
                    + " with its clock 5 s ahead: by B's clock A's lease has long expired, so B takes the actor over"
                    + " while A is still alive, and re-runs the job. A's next heartbeat fails and its write is"
                    + " refused: a skewed clock may cost liveness, never safety. Nothing is committed twice.",
            true,
            "Start worker A (true clock); it hosts the actor",
            "Give the actor a 3 s job; A starts it",
            "Start worker B with its clock 5 s ahead (--clock-offset=5s)",
            "By B's clock A's lease expired: B takes the actor over while A is alive",
            "B supersedes A's attempt (expired by B's clock) and re-runs the job",
            "A's next heartbeat fails; A tries to write its result",
            "B's run ends; it writes its result");
    /** The same situation on a server: it cannot happen there, and the run shows why. */
    private static final ScenarioInfo ON_SERVER = Scenario.info(
            "clock-skew",
            "A fast clock cannot steal a lease here: the server's clock decides",
            "On PostgreSQL the database server's clock decides every expiry, not the workers' clocks (decision 0900)."
                    + " Worker A hosts the actor and runs a job. Worker B starts with its clock 5 s ahead: by B's clock"
                    + " A's lease has long expired, so B asks for it, again and again. Each time the server reads its"
                    + " own clock, finds A's lease live and refuses B (actor_lease_held, journalled). A keeps the actor"
                    + " and finishes the job; a skewed worker clock moves nothing. (On a SQLite file, where each"
                    + " process's clock stamps its writes, the same workers show a lease stolen early.)",
            false,
            "Start worker A (true clock); it hosts the actor",
            "Give the actor a 3 s job; A starts it",
            "Start worker B with its clock 5 s ahead (--clock-offset=5s)",
            "By B's clock A's lease expired, so B asks for it: the server's clock says it is live, B is refused",
            "A keeps the actor, heartbeating, and finishes the job; B never took over");

    private WorkerProcess a;
    private WorkerProcess b;
    private Attempt first;
    private boolean onServer;

    /** Decision 0117: starting A and giving the job may wait; B must start while A's job runs, and what follows is the two workers' own real-time race. */
    @Override
    public boolean holdsBefore(int index) {
        return index <= 1;
    }

    @Override
    public ScenarioInfo info() {
        return INFO;
    }

    @Override
    public ScenarioInfo info(boolean serverClock) {
        return serverClock ? ON_SERVER : INFO;
    }

    @Override
    public void play(LabRun run) throws Inconclusive, InterruptedException, IOException {
        onServer = run.serverDecidesTime();
        run.begin(0);
        a = Moves.hostingWorker(run, "A", null);
        run.begin(1);
        first = Moves.jobStartedBy(run, "A", a, JOB);
        run.begin(2);
        b = Moves.startedWorker(run, "B", SKEW);
        run.done(Moves.who("B", b) + " started; its clock reads " + SKEW.toSeconds() + " s ahead of A's");
        if (onServer) {
            playOnServer(run);
            return;
        }
        run.begin(3);
        FenceEvent takeover = Moves.takeoverBy(run, "B", b);
        run.done(Moves.who("B", b) + " took " + run.actor() + " over with token " + takeover.token()
                + " at " + Moves.time(takeover.at()) + " by its own clock (journal #" + takeover.seq() + ")"
                + (a.isAlive() ? "; A is alive and was heartbeating" : ""));
        run.begin(4);
        Optional<Attempt> second = Moves.rerunUnlessEndedBy(run, "B", b, first);
        if (second.isPresent()) {
            run.done("A's attempt " + first.id() + " (token " + first.token() + ") superseded; B runs attempt "
                    + second.get().id() + " with token " + second.get().token());
            run.begin(5);
            Moves.lateWrite(run, "A", a, first, takeover.seq(), GcPause.takenOver(takeover))
                    .tell(run);
        } else {
            // A is alive here (not paused): its heartbeat finds the lease lost, it cancels its run and writes
            // that result at once. With the fence off that write is accepted, and it can come before B
            // supersedes the attempt; told in the order it happened, it is this step's outcome.
            Moves.Seen late = Moves.lateWrite(run, "A", a, first, takeover.seq(), GcPause.takenOver(takeover));
            run.violated("B found nothing to re-run: before it could supersede A's attempt, " + late.detail());
            run.begin(5);
            run.violated(
                    "told in step 5: A's heartbeat failed and its stale write came before B could re-run" + " the job");
        }
        run.begin(6);
        Moves.rightfulResult(run, "B", b, first.assignmentId(), first, "A").tell(run);
    }

    private void playOnServer(LabRun run) throws Inconclusive, InterruptedException {
        run.begin(3);
        FenceEvent refused = run.awaitEvent(
                "worker B to ask for the lease",
                e -> e.kind() == EventKind.REJECTED
                        && b.processIdentity().equals(e.processIdentity())
                        && RefusalCategory.ACTOR_LEASE_HELD.code().equals(e.category()));
        run.done("B asked at " + Moves.time(refused.at()) + " by the server's clock ("
                + Moves.time(refused.at() + SKEW.toMillis()) + " by its own); the server refused it: "
                + refused.category() + ", A's token "
                + refused.currentToken() + " is live by the server's clock (REJECTED, journal #" + refused.seq() + ")");
        run.begin(4);
        String ran = Moves.runEnded(run, "A", a, first.assignmentId());
        long refusals = run.facts()
                .of(EventKind.REJECTED, e -> b.processIdentity().equals(e.processIdentity()))
                .size();
        run.done("worker A: " + ran + "; B was refused " + refusals + " time(s) and holds nothing");
    }

    @Override
    public List<Check> check(LabRun run) {
        RunFacts facts = RunFacts.read(run, first.assignmentId());
        if (!onServer) {
            return facts.takeoverChecks(
                    "The skewed worker B took the actor over from the live worker A with a greater token",
                    a.processIdentity(),
                    b.processIdentity(),
                    "after the takeover");
        }
        return serverChecks(run, facts);
    }

    /**
     * On a server: B asked and was refused; the server never granted B the actor before A's lease expired by
     * its clock; A kept the lease and its job's result. A grant to B after A's lease lapsed (a machine too
     * slow to heartbeat within the TTL) is the server's correct decision: the run is then inconclusive, not
     * violated.
     */
    private List<Check> serverChecks(LabRun run, RunFacts facts) {
        LedgerFacts journal = facts.journal;
        String holder = a.processIdentity();
        String skewed = b.processIdentity();
        List<FenceEvent> asked = journal.of(
                EventKind.REJECTED,
                e -> skewed.equals(e.processIdentity())
                        && RefusalCategory.ACTOR_LEASE_HELD.code().equals(e.category()));
        Optional<FenceEvent> aGrant = journal.grants().stream()
                .filter(e -> holder.equals(e.processIdentity()))
                .findFirst();
        List<FenceEvent> bGrants = journal.grants().stream()
                .filter(e -> skewed.equals(e.processIdentity()))
                .toList();
        List<FenceEvent> early = earlyGrants(journal.events(), holder, skewed);
        List<FenceEvent> wrong = asked.stream()
                .filter(e -> aGrant.isEmpty()
                        || e.currentToken() == null
                        || e.currentToken() != aGrant.get().token())
                .toList();
        Optional<Lease> lease = run.lab().leases().current(run.actor());
        List<Check> checks = new ArrayList<>();
        checks.add(Check.setup(
                "B, its clock " + SKEW.toSeconds() + " s ahead, found A's lease expired and asked for it",
                !asked.isEmpty(),
                asked.isEmpty()
                        ? "B never asked"
                        : asked.size() + " refusal(s): "
                                + LedgerFacts.refs(asked.subList(0, Math.min(3, asked.size())))));
        checks.add(Check.safety(
                "The server's clock decided: B was never granted the actor before A's lease expired"
                        + " by the server's clock",
                early.isEmpty(),
                early.isEmpty()
                        ? (bGrants.isEmpty()
                                ? "no grant to B"
                                : "B's grants came after A's lease lapsed: " + LedgerFacts.refs(bGrants) + " — "
                                        + bGrants.get(0).detail())
                        : "granted early: " + LedgerFacts.refs(early) + " — "
                                + early.get(0).detail()));
        checks.add(Check.safety(
                "Every refusal of B named A's live lease",
                wrong.isEmpty(),
                wrong.isEmpty()
                        ? "all " + asked.size() + " name token "
                                + aGrant.map(FenceEvent::token)
                                        .map(String::valueOf)
                                        .orElse("?")
                        : "not A's: " + LedgerFacts.refs(wrong)));
        checks.add(Check.setup(
                "A kept the actor all along: B was never granted it, A still holds the lease",
                bGrants.isEmpty()
                        && lease.isPresent()
                        && lease.get().process().equals(holder)
                        && aGrant.isPresent()
                        && lease.get().token() == aGrant.get().token(),
                (bGrants.isEmpty() ? "no grant to B" : "granted to B: " + LedgerFacts.refs(bGrants)) + "; "
                        + lease.map(l -> "lease token " + l.token() + " held by " + l.process())
                                .orElse("no lease")));
        checks.add(facts.atMostOneCommit());
        checks.add(facts.completedBy("A", facts.attemptOf(holder)));
        return checks;
    }

    private static final Pattern EXPIRED_AT = Pattern.compile("expired at (\\S+?)\\)");

    /**
     * The grants to {@code taker} that came while {@code holder}'s lease was live by the server's clock: a
     * takeover stamped (by the server) before the expiry its own journal note names, or an acquisition with
     * no release of the holder's lease before it. Empty when the server's clock decided.
     */
    static List<FenceEvent> earlyGrants(List<FenceEvent> events, String holder, String taker) {
        List<FenceEvent> early = new ArrayList<>();
        for (FenceEvent g : events) {
            if (!taker.equals(g.processIdentity()) || !"actor".equals(g.resourceType())) {
                continue;
            }
            if (g.kind() == EventKind.LEASE_TAKEN_OVER) {
                Matcher m = EXPIRED_AT.matcher(g.detail() == null ? "" : g.detail());
                if (!m.find()) {
                    early.add(g); // a takeover that does not say what it took over proves nothing
                    continue;
                }
                try {
                    if (g.at() < Instant.parse(m.group(1)).toEpochMilli()) {
                        early.add(g);
                    }
                } catch (DateTimeParseException e) {
                    early.add(g);
                }
            } else if (g.kind() == EventKind.LEASE_ACQUIRED
                    && events.stream()
                            .noneMatch(e -> e.seq() < g.seq()
                                    && e.kind() == EventKind.LEASE_RELEASED
                                    && holder.equals(e.processIdentity()))) {
                early.add(g);
            }
        }
        return early;
    }

    @Override
    public String heldHeadline() {
        return onServer
                ? "the server's clock decided: B's fast clock made it ask for A's live lease, and the server refused"
                        + " it every time; A kept the actor and committed its job once. On PostgreSQL a skewed worker"
                        + " clock cannot steal a lease"
                : "the fence held: B's fast clock let it take the lease early (time decides when), but A's writes were"
                        + " refused (tokens decide who); nothing was committed twice";
    }
}
