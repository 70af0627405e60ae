package dev.sovereign.engine.lab;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.journal.FenceEvent;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.mailbox.Claim;
import dev.sovereign.engine.mailbox.Message;
import dev.sovereign.engine.mailbox.MessageState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code expired-self-reclaim}, the F-U4-1 lesson: a claim expires and its own owner claims the
 * message again. The re-claim must mint a fresh, greater token (not hand back the old one, as a
 * "same owner, same claim" shortcut would), so that the owner's late completion under the expired
 * claim is refused.
 *
 * <p>How it is done: no worker process. A worker claims and completes a message in one breath, so it
 * cannot be made to stall between the two on cue. The owner here is a separate process for fencing
 * opened by the lab in its own JVM (its own identity, its own lease), which is exactly what the
 * property is about: one process, its own expired claim. The journal and ledger are read as for the
 * other scenarios.
 */
final class ExpiredSelfReclaim implements Scenario {
    static final Duration CLAIM_TTL = Duration.ofMillis(800);
    static final Duration LEASE_TTL = Duration.ofSeconds(30);
    private static final ScenarioInfo INFO = Scenario.info(
            "expired-self-reclaim",
            "An owner's expired claim comes back with a fresh token",
            "A process hosting the actor claims a message, then stalls past the claim's TTL. It claims the message"
                    + " again: because the old claim expired, it gets a fresh, greater token, not the old one back."
                    + " Its late completion with the old token is refused and journalled; the new token completes the"
                    + " message exactly once. (The F-U4-1 lesson: 'same owner' must not mean 'same claim' after"
                    + " expiry.)",
            false,
            "A process (the owner) hosts the actor",
            "A message arrives; the owner claims it (claim TTL 800 ms)",
            "The owner stalls past the claim's TTL; nothing renews a claim",
            "The owner claims the message again: a fresh, greater token",
            "The owner's late completion with the old token is refused",
            "Completion with the fresh token finishes the message once");

    private Engine owner;
    private String message;
    private Claim first;
    private Claim second;

    /** Decision 0117: the owner's lease lasts 30 s: a hold after it was taken could let it expire and change the story, so only the first step may wait. */
    @Override
    public boolean holdsBefore(int index) {
        return index == 0;
    }

    @Override
    public ScenarioInfo info() {
        return INFO;
    }

    @Override
    public void play(LabRun run) throws Inconclusive, InterruptedException {
        run.begin(0);
        owner = run.bench().openSideProcess("owner (" + run.actor() + ")", true);
        Lease lease = owner.leases().acquire(run.actor(), LEASE_TTL);
        run.done("the owner (" + owner.processIdentity() + ") hosts " + run.actor() + " with lease token "
                + lease.token());
        run.begin(1);
        Message m = run.lab().mailbox().send("lab", run.actor(), "please handle", "a message for the lab", 3);
        message = m.id();
        first = owner.mailbox().claim(message, run.actor(), CLAIM_TTL);
        run.done("message " + message + " claimed with token " + first.token() + " until "
                + Moves.time(first.expiresAt()));
        run.begin(2);
        run.await(
                "the claim to expire",
                LabRun.WAIT,
                () -> run.lab().config().clock().millis() >= first.expiresAt() ? Boolean.TRUE : null);
        run.done("the claim with token " + first.token() + " expired at " + Moves.time(first.expiresAt()));
        run.begin(3);
        second = owner.mailbox().claim(message, run.actor(), LEASE_TTL);
        run.done(
                second.token() == first.token()
                        ? "the SAME token " + second.token() + " came back"
                        : "a fresh token " + second.token() + " > " + first.token());
        run.begin(4);
        run.done(tryComplete(first.token()));
        run.begin(5);
        run.done(tryComplete(second.token()));
    }

    private String tryComplete(long token) {
        try {
            Message done = owner.mailbox().complete(message, token);
            return "completion with token " + token + " accepted: the message is " + done.state();
        } catch (Refusal r) {
            return "completion with token " + token + " refused: "
                    + r.category().code() + (r.currentToken() == null ? "" : ", current token " + r.currentToken());
        }
    }

    @Override
    public List<Check> check(LabRun run) {
        LedgerFacts f = run.facts();
        String ownerId = owner == null ? "" : owner.processIdentity();
        List<FenceEvent> grants = f.of(
                EventKind.CLAIM_GRANTED, e -> e.resourceId().equals(message) && ownerId.equals(e.processIdentity()));
        List<FenceEvent> done = f.of(EventKind.MESSAGE_DONE, e -> e.resourceId().equals(message));
        List<FenceEvent> refused = f.of(EventKind.REJECTED, e -> e.resourceId().equals(message));
        List<Check> checks = new ArrayList<>();
        checks.add(Check.setup(
                "The owner claimed the message again after its claim expired",
                grants.size() >= 2,
                LedgerFacts.refs(grants)));
        boolean increasing = true;
        for (int i = 1; i < grants.size(); i++) {
            increasing &= grants.get(i).token() > grants.get(i - 1).token();
        }
        checks.add(Check.safety(
                "The re-claim minted a fresh, greater token, not the expired one back",
                increasing,
                LedgerFacts.refs(grants)));
        long stale = first == null ? -1 : first.token();
        List<FenceEvent> staleDone = done.stream()
                .filter(e -> e.token() != null && e.token() == stale)
                .toList();
        checks.add(Check.safety(
                "No completion was accepted with the expired claim's token",
                staleDone.isEmpty(),
                staleDone.isEmpty() ? "no MESSAGE_DONE with token " + stale : LedgerFacts.refs(staleDone)));
        checks.add(Check.safety("The message was finished at most once", done.size() <= 1, LedgerFacts.refs(done)));
        Optional<FenceEvent> staleRefusal = refused.stream()
                .filter(e -> e.presentedToken() != null
                        && e.presentedToken() == stale
                        && RefusalCategory.FENCING_TOKEN_STALE.code().equals(e.category()))
                .findFirst();
        checks.add(Check.setup(
                "The late completion with the old token was refused and journalled",
                staleRefusal.isPresent(),
                LedgerFacts.refs(refused)));
        Optional<Message> m =
                message == null ? Optional.empty() : run.lab().mailbox().find(message);
        checks.add(Check.setup(
                "The fresh token finished the message",
                m.isPresent()
                        && m.get().state() == MessageState.DONE
                        && done.size() == 1
                        && second != null
                        && done.get(0).token() != null
                        && done.get(0).token() == second.token(),
                m.map(x -> "message " + x.id() + " is " + x.state()).orElse("no message") + "; "
                        + LedgerFacts.refs(done)));
        return checks;
    }

    @Override
    public String heldHeadline() {
        return "the fence held: the owner's expired claim came back with a fresh token, its late completion with the"
                + " old token was refused and journalled, and the message was finished exactly once";
    }
}
