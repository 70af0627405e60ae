package dev.sovereign.engine.lab;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.journal.FenceEvent;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.Attempt;
import dev.sovereign.engine.run.Receipt;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What the ledger says about one job (assignment) in a scenario: its row, its attempts, its receipt
 * and the fence events about it. The shared vocabulary of the run scenarios' checkers. Immutable.
 */
final class RunFacts {
    final Assignment job;
    final List<Attempt> attempts;
    final Optional<Receipt> receipt;
    final LedgerFacts journal;

    private RunFacts(Assignment job, List<Attempt> attempts, Optional<Receipt> receipt, LedgerFacts journal) {
        this.job = job;
        this.attempts = attempts;
        this.receipt = receipt;
        this.journal = journal;
    }

    static RunFacts read(LabRun run, String jobId) {
        Engine lab = run.lab();
        return new RunFacts(
                lab.runs().get(jobId).orElseThrow(),
                lab.runs().attempts(jobId),
                lab.runs().receipt(jobId),
                run.facts());
    }

    /** The first attempt of {@code process} (attempts are ordered by start), if any. */
    Optional<Attempt> attemptOf(String process) {
        return attempts.stream()
                .filter(a -> a.processIdentity().equals(process))
                .findFirst();
    }

    /** Terminal commits of this job: ATTEMPT_DONE events of its attempts. */
    List<FenceEvent> commits() {
        Set<String> ids = attempts.stream().map(Attempt::id).collect(Collectors.toSet());
        return journal.of(EventKind.ATTEMPT_DONE, e -> ids.contains(e.resourceId()));
    }

    List<FenceEvent> commitsOf(Attempt a, long afterSeq) {
        return journal.of(EventKind.ATTEMPT_DONE, e -> e.resourceId().equals(a.id()) && e.seq() > afterSeq);
    }

    /** REJECTED events about this job written by {@code process} after {@code afterSeq}. */
    List<FenceEvent> refusalsOf(String process, long afterSeq) {
        return journal.of(
                EventKind.REJECTED,
                e -> process.equals(e.processIdentity()) && job.id().equals(e.resourceId()) && e.seq() > afterSeq);
    }

    /**
     * The checks of a takeover story: worker B ({@code taker}) took the actor over from worker A
     * ({@code holder}) while A was running the job, and re-ran it; A then tried to write. Setup: the
     * takeover with a greater token, the supersede, A's late write; safety: A committed nothing after
     * the takeover, its refusals presented its old token, the job was committed at most once; setup:
     * B's result is the canonical one.
     */
    List<Check> takeoverChecks(String takeover, String holder, String taker, String afterWords) {
        Optional<Attempt> aAttempt = attemptOf(holder);
        Optional<Attempt> bAttempt = attemptOf(taker);
        Optional<FenceEvent> grant = journal.first(EventKind.LEASE_TAKEN_OVER, e -> taker.equals(e.processIdentity()));
        long after = grant.map(FenceEvent::seq).orElse(Long.MAX_VALUE);
        List<Check> checks = new ArrayList<>();
        checks.add(Check.setup(
                takeover,
                grant.isPresent()
                        && aAttempt.isPresent()
                        && grant.get().token() > aAttempt.get().leaseToken(),
                grant.map(e -> "#" + e.seq() + " LEASE_TAKEN_OVER token " + e.token() + " at " + Moves.time(e.at())
                                        + " by B's clock")
                                .orElse("no takeover by B")
                        + aAttempt.map(x -> "; A's lease token " + x.leaseToken())
                                .orElse("")));
        checks.add(Check.setup(
                "A's expired attempt was superseded by B's",
                aAttempt.isPresent() && superseded(aAttempt.get()) && bAttempt.isPresent(),
                aAttempt.map(x -> "attempt " + x.id() + " is " + x.state()).orElse("A had no attempt")
                        + bAttempt.map(x -> "; B's attempt " + x.id() + " token " + x.token())
                                .orElse("; B ran no attempt")));
        checks.add(triedToWrite("A", holder, aAttempt, after, afterWords));
        checks.add(noCommitAfter("A", aAttempt, after, "after B's takeover"));
        checks.add(refusalsPresentOldTokens("A", holder, after));
        checks.add(atMostOneCommit());
        checks.add(completedBy("B", bAttempt, aAttempt.map(x -> Map.entry(x.id(), "A's stale write"))));
        return checks;
    }

    boolean superseded(Attempt a) {
        return !journal.of(EventKind.ATTEMPT_SUPERSEDED, e -> e.resourceId().equals(a.id()))
                .isEmpty();
    }

    /** "A's attempt committed nothing after {@code afterSeq}". */
    Check noCommitAfter(String who, Optional<Attempt> a, long afterSeq, String since) {
        return noCommitAfter(who, a, afterSeq, since, since);
    }

    /**
     * The same, with the words of its failure ({@code brokenSince}: "after its fence was stolen") apart from the
     * statement's ({@code since}: "(completed, failed or cancelled) after its fence was stolen").
     */
    Check noCommitAfter(String who, Optional<Attempt> a, long afterSeq, String since, String brokenSince) {
        List<FenceEvent> late = a.map(x -> commitsOf(x, afterSeq)).orElse(List.of());
        Check check = Check.safety(
                who + "'s attempt made no terminal commit " + since,
                late.isEmpty(),
                late.isEmpty()
                        ? a.map(x -> "no ATTEMPT_DONE for " + x.id() + " (token " + x.token() + ") after #" + afterSeq)
                                .orElse("it had no attempt")
                        : "committed anyway: " + LedgerFacts.refs(late) + detailOf(late));
        return late.isEmpty() || a.isEmpty()
                ? check
                : check.whenBroken(who + "'s stale write was accepted " + brokenSince + " (attempt "
                        + a.get().id() + ", token " + a.get().token() + ", journal #"
                        + late.get(0).seq() + ")");
    }

    /** "Every write of {@code who} refused after the event presented a token older than the current one". */
    Check refusalsPresentOldTokens(String who, String process, long afterSeq) {
        List<FenceEvent> refused = refusalsOf(process, afterSeq);
        List<FenceEvent> bad = new ArrayList<>();
        for (FenceEvent e : refused) {
            if (e.presentedToken() == null || (e.currentToken() != null && e.presentedToken() >= e.currentToken())) {
                bad.add(e);
            }
        }
        return Check.safety(
                        "Every refused write of " + who + " presented its old token, older than the current one",
                        bad.isEmpty(),
                        refused.isEmpty() ? "no refused write to examine" : LedgerFacts.refs(refused))
                .whenBroken("a write of " + who + " was refused without presenting an older token ("
                        + LedgerFacts.refs(bad) + ")");
    }

    /** "At most one terminal commit of the job". */
    Check atMostOneCommit() {
        List<FenceEvent> commits = commits();
        return Check.safety(
                        "The job was committed at most once",
                        commits.size() <= 1,
                        "ATTEMPT_DONE: " + LedgerFacts.refs(commits)
                                + receipt.map(r -> "; receipt " + r.id() + " by attempt " + r.attemptId() + " ("
                                                + r.status().code() + ")")
                                        .orElse("; no receipt"))
                .whenBroken("the job was committed " + commits.size() + " times (" + LedgerFacts.refs(commits) + ")");
    }

    /** "{@code who} tried to write after the event": a refusal or a commit of its attempt. */
    Check triedToWrite(String who, String process, Optional<Attempt> a, long afterSeq, String since) {
        List<FenceEvent> refused = refusalsOf(process, afterSeq);
        List<FenceEvent> committed = a.map(x -> commitsOf(x, afterSeq)).orElse(List.of());
        List<FenceEvent> both = new ArrayList<>(refused);
        both.addAll(committed);
        return Check.setup(who + " tried to write its result " + since, !both.isEmpty(), LedgerFacts.refs(both));
    }

    /** "The job completed by {@code who}'s attempt". */
    Check completedBy(String who, Optional<Attempt> a) {
        return completedBy(who, a, Optional.empty());
    }

    /**
     * The same; {@code stale} names a stale attempt (its id, and its words: "A's stale write") for the sentence
     * when it, not {@code who}, ended the job.
     */
    Check completedBy(String who, Optional<Attempt> a, Optional<Map.Entry<String, String>> stale) {
        boolean ok = a.isPresent()
                && job.state().name().equals("COMPLETED")
                && receipt.isPresent()
                && receipt.get().attemptId().equals(a.get().id());
        Check check = Check.setup(
                who + " completed the job; its result is the canonical one",
                ok,
                "job " + job.id() + " is "
                        + job.state()
                        + receipt.map(r -> ", receipt " + r.id() + " by attempt " + r.attemptId() + " (token "
                                        + r.attemptToken() + ")")
                                .orElse(", no receipt"));
        // the rightful holder's result lost to another attempt's receipt: the other half of a broken fence
        return receipt.filter(r -> a.isEmpty() || !r.attemptId().equals(a.get().id()))
                .map(r -> check.whenBroken(who + "'s rightful result was lost: the job ended " + job.state() + " by "
                        + stale.filter(x -> x.getKey().equals(r.attemptId()))
                                .map(Map.Entry::getValue)
                                .orElse("attempt " + r.attemptId())))
                .orElse(check);
    }

    private static String detailOf(List<FenceEvent> events) {
        return events.isEmpty() || events.get(0).detail() == null
                ? ""
                : " — " + events.get(0).detail();
    }
}
