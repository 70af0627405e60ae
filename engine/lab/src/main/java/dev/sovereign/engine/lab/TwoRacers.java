package dev.sovereign.engine.lab;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.journal.FenceEvent;
import dev.sovereign.engine.lease.Lease;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code two-racers}: two workers for one actor race for its lease at the same moment; exactly one
 * hosts it, and the other's contention is refused and journalled.
 *
 * <p>How they race: a lab process holds the actor's lease as a starting gate while both workers start
 * and wait for it. A waiting worker sleeps until the lease it waits for expires, then acquires; so
 * when the lab shortens the gate's lease, both wake at the same millisecond and call {@code acquire}
 * together. The compare-and-set lets one win. The loser either lost at the compare-and-set itself
 * (refused {@code actor_lease_held}, journalled) or, a few microseconds late, saw the winner's fresh
 * lease and went back to waiting politely (a worker does not hammer {@code acquire} while a lease is
 * live, so that wait is not journalled). In the second case the lab asks the loser, over its control
 * channel, to try once now ({@code contend}); the engine refuses it and journals it. Either way the
 * refusal in the journal is the loser's own. See docs/decisions/0701.
 */
final class TwoRacers implements Scenario {
    static final Duration GATE = Duration.ofSeconds(60);
    static final Duration GATE_OPENS_IN = Duration.ofMillis(600);
    /** How long after the winner's grant a refusal at the compare-and-set would have appeared. */
    static final Duration SETTLE = Duration.ofMillis(500);

    private static final ScenarioInfo INFO = Scenario.info(
            "two-racers",
            "Two workers race for one actor: exactly one hosts it",
            "Two worker processes start for the same actor and wait behind a starting gate. When the gate opens"
                    + " they call acquire at the same moment; the database's compare-and-set lets exactly one win."
                    + " The loser's attempt is refused (actor_lease_held) and the refusal is in the journal: it names"
                    + " the winner's token.",
            false,
            "Hold the actor's lease as a starting gate (a lab process)",
            "Start workers A and B; both wait at the gate",
            "Open the gate: both wake at the same moment and call acquire",
            "Exactly one of them hosts the actor",
            "The loser's contention is refused and journalled");

    private Lease gate;
    private WorkerProcess a;
    private WorkerProcess b;
    private WorkerProcess winner;
    private WorkerProcess loser;

    /** Decision 0117: the gate process's lease lasts 60 s without a heartbeat and the workers race as soon as it ends: only the first step may wait. */
    @Override
    public boolean holdsBefore(int index) {
        return index == 0;
    }

    @Override
    public ScenarioInfo info() {
        return INFO;
    }

    @Override
    public void play(LabRun run) throws Inconclusive, InterruptedException, IOException {
        run.begin(0);
        Engine gateProcess = run.bench().openSideProcess("lab gate (" + run.actor() + ")", false);
        gate = gateProcess.leases().acquire(run.actor(), GATE);
        run.done("the lab's gate process holds " + run.actor() + " with token " + gate.token());
        run.begin(1);
        a = run.startWorker("A", Moves.TTL, null);
        b = run.startWorker("B", Moves.TTL, null);
        run.awaitLine(a, l -> l.startsWith("waiting"), "worker A to wait at the gate");
        run.awaitLine(b, l -> l.startsWith("waiting"), "worker B to wait at the gate");
        run.done(Moves.who("A", a) + " and " + Moves.who("B", b) + " both wait for the gate's lease");
        run.begin(2);
        Lease shortened = gateProcess.leases().renew(run.actor(), gate.token(), GATE_OPENS_IN);
        // The gate process does not heartbeat; it forgets the lease so that closing it releases nothing.
        gateProcess.leases().abandon(run.actor(), gate.token());
        run.done("the gate's lease now ends at " + Moves.time(shortened.expiresAt()) + "; both workers wake then");
        run.begin(3);
        FenceEvent grant = run.await(
                "one worker to host " + run.actor(),
                LabRun.WAIT,
                () -> run.facts().grants().stream()
                        .filter(e -> isRacer(e.processIdentity()))
                        .findFirst()
                        .orElse(null),
                () -> a.isAlive() && b.isAlive() ? null : "a worker exited");
        winner = a.processIdentity().equals(grant.processIdentity()) ? a : b;
        loser = winner == a ? b : a;
        String w = winner == a ? "A" : "B";
        String l = winner == a ? "B" : "A";
        run.done(Moves.who(w, winner) + " hosts " + run.actor() + " with token " + grant.token() + " > the gate's "
                + gate.token() + " (journal #" + grant.seq() + ")");
        run.begin(4);
        Thread.sleep(SETTLE.toMillis());
        Optional<FenceEvent> atCas = loserRefusals(run).stream().findFirst();
        if (atCas.isPresent()) {
            run.done("worker " + l + " lost at the compare-and-set: " + describe(atCas.get()));
            return;
        }
        loser.contend();
        FenceEvent asked = run.await(
                "worker " + l + "'s refusal",
                LabRun.WAIT,
                () -> loserRefusals(run).stream().findFirst().orElse(null),
                () -> loser.isAlive() ? null : "worker " + l + " exited");
        run.done("worker " + l + " saw " + w + "'s fresh lease first and kept waiting; asked to try once, it was"
                + " refused: " + describe(asked));
    }

    private boolean isRacer(String process) {
        return a.processIdentity().equals(process) || b.processIdentity().equals(process);
    }

    private List<FenceEvent> loserRefusals(LabRun run) {
        return run.facts().of(EventKind.REJECTED, e -> loser.processIdentity().equals(e.processIdentity()));
    }

    private static String describe(FenceEvent e) {
        return e.category() + ", current token " + e.currentToken() + " (REJECTED, journal #" + e.seq() + ")";
    }

    @Override
    public List<Check> check(LabRun run) {
        LedgerFacts f = run.facts();
        List<FenceEvent> racerGrants = a == null || b == null
                ? List.of()
                : f.grants().stream().filter(e -> isRacer(e.processIdentity())).toList();
        List<Check> checks = new ArrayList<>();
        checks.add(Check.setup(
                "A racer was granted the lease once the gate opened",
                !racerGrants.isEmpty(),
                LedgerFacts.refs(racerGrants)));
        checks.add(Check.safety(
                "At most one racer was granted the lease",
                racerGrants.stream().map(FenceEvent::processIdentity).distinct().count() <= 1
                        && racerGrants.size() <= 1,
                LedgerFacts.refs(racerGrants)));
        checks.add(Check.safety(
                "Tokens strictly increase: every racer's grant is greater than the gate's",
                racerGrants.stream().allMatch(e -> gate != null && e.token() > gate.token()),
                "gate token " + (gate == null ? "none" : gate.token()) + "; " + LedgerFacts.refs(racerGrants)));
        Optional<Lease> now = run.lab().leases().current(run.actor());
        boolean rowMatches = winner == null
                || (now.isPresent()
                        && now.get().process().equals(winner.processIdentity())
                        && now.get().token() == racerGrants.get(0).token());
        checks.add(Check.safety(
                "The lease row names the winner with the winner's token",
                rowMatches,
                now.map(x -> "lease row: " + x.process() + " token " + x.token())
                        .orElse("no lease row")));
        List<FenceEvent> refused = loser == null ? List.of() : loserRefusals(run);
        long winnerToken = racerGrants.isEmpty() ? -1 : racerGrants.get(0).token();
        checks.add(Check.safety(
                "Every refusal of the loser is actor_lease_held and names the winner's token",
                refused.stream()
                        .allMatch(e -> RefusalCategory.ACTOR_LEASE_HELD.code().equals(e.category())
                                && e.currentToken() != null
                                && e.currentToken() == winnerToken),
                LedgerFacts.refs(refused)));
        checks.add(
                Check.setup("The loser's contention is in the journal", !refused.isEmpty(), LedgerFacts.refs(refused)));
        return checks;
    }

    @Override
    public String heldHeadline() {
        return "the fence held: of two workers racing for one actor exactly one hosts it; the other was refused"
                + " (actor_lease_held) and the refusal is in the journal";
    }

    /** The loser first: stopped second, it would take the lease the winner releases. */
    @Override
    public void teardown(LabRun run) throws InterruptedException {
        try {
            if (loser != null) {
                run.bench().stop(loser, Duration.ofSeconds(10));
            }
        } catch (IOException e) {
            // the bench kills what it could not stop
        }
    }
}
