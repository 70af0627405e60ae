package dev.sovereign.engine.mailbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.journal.FenceEvent;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.testing.ChildJvm;
import dev.sovereign.engine.testing.TempDatabase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Three real child JVMs ({@link MailboxFuzzWorker}) take turns hosting two actors while messages
 * flow through them. Takeovers are forced twice over: the workers stall past their TTLs on purpose,
 * and the test freezes a worker with SIGSTOP until its leases have been taken over, then resumes it
 * with SIGCONT, so it comes back holding tokens that are no longer current.
 *
 * <p>Afterwards the ledger must show: every message finished exactly once; every finishing write
 * made with the message's last granted token by the process it was granted to; every success a
 * worker saw is in the journal and nothing else is; and every refusal a worker got has its
 * {@code REJECTED} row.
 */
class MailboxFuzzTest {
    private static final int WORKERS = 3;
    private static final List<String> ACTORS = List.of("alpha", "beta");
    private static final long LEASE_TTL_MS = 300;
    private static final long CLAIM_TTL_MS = 300;
    private static final long STALL_MS = 700;
    private static final long FLOW_MS = 10_000;
    private static final long FREEZE_MS = 2_000;
    private static final int BACKLOG = 8;
    private static final Set<String> FINISH_REFUSALS = Set.of("fencing_token_stale", "actor_lease_lost");

    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private record Worker(Process process, Path log) {}

    private record Outcome(String message, long token, String process) {}

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void messagesFlowingThroughProcessesThatTakeTurnsAreEachFinishedOnceByTheirLastTokenHolder() throws Exception {
        Engine driver = temp.open(Clock.systemUTC());
        ACTORS.forEach(a -> driver.actors().add(a));
        Path stop = temp.dir().resolve("stop");
        Random random = new Random(42);
        List<Worker> workers = new ArrayList<>();
        int sent = 0;
        int pauses = 0;
        int takenOverWhileFrozen = 0;
        try {
            for (int i = 0; i < WORKERS; i++) {
                Path log = temp.dir().resolve("worker-" + i + ".log");
                Process p = ChildJvm.start(
                        MailboxFuzzWorker.class,
                        log,
                        temp.file().toString(),
                        stop.toString(),
                        "fuzz-" + i,
                        Long.toString(1000 + i),
                        Long.toString(LEASE_TTL_MS),
                        Long.toString(CLAIM_TTL_MS),
                        Long.toString(STALL_MS),
                        String.join(",", ACTORS));
                workers.add(new Worker(p, log));
            }
            List<String> identities = new ArrayList<>();
            for (Worker w : workers) {
                awaitCondition(() -> identity(w).isPresent() || !w.process().isAlive(), 30_000, "a worker to start");
                identities.add(identity(w).orElseThrow(() -> new AssertionError("worker died: " + read(w.log()))));
            }

            long flowEnd = System.currentTimeMillis() + FLOW_MS;
            long nextPause = System.currentTimeMillis() + 1_500;
            while (System.currentTimeMillis() < flowEnd) {
                long unfinished = driver.mailbox().list().stream()
                        .filter(m -> !m.state().isFinished())
                        .count();
                for (long n = unfinished; n < BACKLOG; n++) {
                    driver.mailbox().send("fuzz-driver", ACTORS.get(sent % ACTORS.size()), "m" + sent, null, 1);
                    sent++;
                }
                driver.mailbox().sweepExpiredClaims(); // the supervisor's step 2, racing the workers
                if (System.currentTimeMillis() >= nextPause) {
                    int victim = random.nextInt(WORKERS);
                    if (freezeUntilTakenOver(driver, workers.get(victim).process(), identities.get(victim))) {
                        takenOverWhileFrozen++;
                    }
                    pauses++;
                    nextPause = System.currentTimeMillis() + 1_500;
                }
                poll();
            }
            awaitCondition(
                    () -> {
                        driver.mailbox().sweepExpiredClaims();
                        return driver.mailbox().list().stream()
                                .allMatch(m -> m.state().isFinished());
                    },
                    15_000,
                    "every message to be finished");
        } finally {
            for (Worker w : workers) {
                if (w.process().isAlive()) {
                    ChildJvm.signal(w.process(), "CONT");
                }
            }
            Files.writeString(stop, "stop");
            for (Worker w : workers) {
                if (!w.process().waitFor(20, TimeUnit.SECONDS)) {
                    ChildJvm.destroy(w.process());
                }
            }
        }
        for (Worker w : workers) {
            assertThat(w.process().exitValue())
                    .as("exit of worker, log:%n%s", read(w.log()))
                    .isZero();
        }

        verifyLedger(driver, workers, sent, pauses + " freezes (" + takenOverWhileFrozen + " taken over)");
    }

    /**
     * SIGSTOPs a worker and keeps it frozen until every lease it held is someone else's and its claims
     * have expired, or at most {@link #FREEZE_MS} — the freeze may catch it inside a write transaction,
     * holding SQLite's write lock, and then nobody can take over until it resumes (that case is
     * worth having too: its transaction commits late, with an old {@code now}).
     *
     * @return whether the worker's leases were taken over while it was frozen
     */
    private static boolean freezeUntilTakenOver(Engine driver, Process worker, String identity) throws Exception {
        long now = System.currentTimeMillis();
        List<String> hosted = driver.leases().list().stream()
                .filter(l -> l.process().equals(identity) && !l.isExpiredAt(now))
                .map(Lease::actor)
                .toList();
        ChildJvm.signal(worker, "STOP");
        try {
            return pollUntil(
                    () -> hosted.stream()
                                    .allMatch(a -> driver.leases()
                                            .current(a)
                                            .map(l -> !l.process().equals(identity))
                                            .orElse(false))
                            && driver.mailbox().list().stream()
                                    .noneMatch(m -> m.state() == MessageState.CLAIMED
                                            && m.claim().process().equals(identity)
                                            && !m.claim().isExpiredAt(System.currentTimeMillis())),
                    FREEZE_MS);
        } finally {
            ChildJvm.signal(worker, "CONT");
        }
    }

    private static void verifyLedger(Engine driver, List<Worker> workers, int sent, String freezes) throws IOException {
        List<Message> messages = driver.mailbox().list();
        List<FenceEvent> events = driver.journal().since(0, Integer.MAX_VALUE);
        Map<String, List<FenceEvent>> byMessage = events.stream()
                .filter(e -> "message".equals(e.resourceType()))
                .collect(Collectors.groupingBy(FenceEvent::resourceId));
        assertThat(messages).hasSize(sent);

        for (Message m : messages) {
            List<FenceEvent> history = byMessage.get(m.id());
            assertThat(m.state()).as("state of %s", m.id()).isIn(MessageState.DONE, MessageState.DEAD);
            List<FenceEvent> terminal = history.stream()
                    .filter(e -> e.kind() == EventKind.MESSAGE_DONE || e.kind() == EventKind.MESSAGE_DEAD)
                    .toList();
            assertThat(terminal)
                    .as("terminal events of %s", m.id())
                    .singleElement()
                    .satisfies(e -> assertThat(e.kind())
                            .isEqualTo(
                                    m.state() == MessageState.DONE ? EventKind.MESSAGE_DONE : EventKind.MESSAGE_DEAD));
            assertThat(m.claim().token()).isEqualTo(terminal.get(0).token());

            long lastToken = 0;
            FenceEvent lastGrant = null;
            for (FenceEvent e : history) {
                switch (e.kind()) {
                    case CLAIM_GRANTED -> {
                        assertThat(e.token())
                                .as("claim tokens of %s never go back", m.id())
                                .isGreaterThanOrEqualTo(lastToken);
                        lastToken = e.token();
                        lastGrant = e;
                    }
                    case CLAIM_SWEPT -> {
                        assertThat(lastGrant).isNotNull();
                        assertThat(e.token())
                                .as("only the last claim can be swept")
                                .isEqualTo(lastGrant.token());
                        lastGrant = null;
                    }
                    case MESSAGE_DONE, MESSAGE_DEAD, MESSAGE_RETRIED -> {
                        assertThat(lastGrant)
                                .as("%s of %s follows a live grant", e.kind(), m.id())
                                .isNotNull();
                        assertThat(e.token())
                                .as("%s of %s uses the last granted token", e.kind(), m.id())
                                .isEqualTo(lastGrant.token());
                        assertThat(e.processIdentity())
                                .as("%s of %s is by the last grantee", e.kind(), m.id())
                                .isEqualTo(lastGrant.processIdentity());
                        lastGrant = null;
                    }
                    default -> {}
                }
            }
        }

        // whoever finishes a message hosts its actor at that point of the journal (lease pointer check)
        Map<String, String> host = new HashMap<>();
        for (FenceEvent e : events) {
            switch (e.kind()) {
                case LEASE_ACQUIRED, LEASE_TAKEN_OVER -> host.put(e.resourceId(), e.processIdentity());
                case LEASE_RELEASED -> host.remove(e.resourceId());
                case MESSAGE_DONE, MESSAGE_DEAD, MESSAGE_RETRIED ->
                    assertThat(host.get(e.actorId()))
                            .as(
                                    "host of %s when %s finished %s (seq %d)",
                                    e.actorId(), e.processIdentity(), e.resourceId(), e.seq())
                            .isEqualTo(e.processIdentity());
                default -> {}
            }
        }

        // what the workers saw must be exactly what the journal says
        Map<EventKind, List<Outcome>> reported = new HashMap<>();
        List<String[]> refusedFinishes = new ArrayList<>();
        List<String[]> refusedClaims = new ArrayList<>();
        for (Worker w : workers) {
            String me = identity(w).orElseThrow();
            for (String line : Files.readAllLines(w.log())) {
                String[] f = line.split(" ");
                switch (f[0]) {
                    case "DONE" -> add(reported, EventKind.MESSAGE_DONE, new Outcome(f[1], Long.parseLong(f[2]), me));
                    case "DEAD" -> add(reported, EventKind.MESSAGE_DEAD, new Outcome(f[1], Long.parseLong(f[2]), me));
                    case "RETRIED" ->
                        add(reported, EventKind.MESSAGE_RETRIED, new Outcome(f[1], Long.parseLong(f[2]), me));
                    case "REFUSED" -> refusedFinishes.add(new String[] {f[2], f[3], f[4], me});
                    case "CLAIM_REFUSED" -> refusedClaims.add(new String[] {f[1], f[2], me});
                    case "IDENTITY", "SLF4J(W):" -> {
                        // its identity; sqlite-jdbc's note that no logger is bound
                    }
                    default -> fail("unexpected worker output: %s", line);
                }
            }
        }
        for (EventKind kind : List.of(EventKind.MESSAGE_DONE, EventKind.MESSAGE_DEAD, EventKind.MESSAGE_RETRIED)) {
            List<Outcome> journalled = events.stream()
                    .filter(e -> e.kind() == kind)
                    .map(e -> new Outcome(e.resourceId(), e.token(), e.processIdentity()))
                    .toList();
            assertThat(reported.getOrDefault(kind, List.of()))
                    .as("%s reported vs journalled", kind)
                    .containsExactlyInAnyOrderElementsOf(journalled);
        }

        List<FenceEvent> rejected = new ArrayList<>(events.stream()
                .filter(e -> e.kind() == EventKind.REJECTED)
                .filter(e -> "message".equals(e.resourceType()))
                .toList());
        for (String[] r : refusedFinishes) {
            assertThat(r[2]).as("a refused finish is a fencing refusal").isIn(FINISH_REFUSALS);
            FenceEvent row = rejected.stream()
                    .filter(e -> e.resourceId().equals(r[0])
                            && Long.valueOf(r[1]).equals(e.presentedToken())
                            && r[2].equals(e.category())
                            && r[3].equals(e.processIdentity()))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no REJECTED row for refused finish " + String.join(" ", r)));
            rejected.remove(row); // each row answers one refusal
        }
        for (String[] r : refusedClaims) {
            if (Set.of("message_claimed", "actor_lease_lost").contains(r[1])) {
                FenceEvent row = rejected.stream()
                        .filter(e -> e.resourceId().equals(r[0])
                                && r[1].equals(e.category())
                                && r[2].equals(e.processIdentity()))
                        .findFirst()
                        .orElseThrow(
                                () -> new AssertionError("no REJECTED row for refused claim " + String.join(" ", r)));
                rejected.remove(row);
            }
        }

        long takeovers = events.stream()
                .filter(e -> e.kind() == EventKind.LEASE_TAKEN_OVER)
                .count();
        long done = reported.getOrDefault(EventKind.MESSAGE_DONE, List.of()).size();
        System.out.printf(
                "mailbox fuzz: %d messages, %d done, %d dead, %d retried, %d lease takeovers,"
                        + " %s, %d refused finishes, %d refused claims%n",
                sent,
                done,
                reported.getOrDefault(EventKind.MESSAGE_DEAD, List.of()).size(),
                reported.getOrDefault(EventKind.MESSAGE_RETRIED, List.of()).size(),
                takeovers,
                freezes,
                refusedFinishes.size(),
                refusedClaims.size());
        // the run really exercised what it claims to test
        assertThat(done).isGreaterThanOrEqualTo(20);
        assertThat(takeovers).isGreaterThanOrEqualTo(3);
        assertThat(refusedFinishes).isNotEmpty();
    }

    private static void add(Map<EventKind, List<Outcome>> map, EventKind kind, Outcome o) {
        map.computeIfAbsent(kind, k -> new ArrayList<>()).add(o);
    }

    private static Optional<String> identity(Worker w) {
        return read(w.log())
                .lines()
                .filter(l -> l.startsWith("IDENTITY "))
                .map(l -> l.substring(9))
                .findFirst();
    }

    private static String read(Path log) {
        try {
            return Files.exists(log) ? Files.readString(log) : "";
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    /** Polls a condition about the child processes until it holds, or fails at the deadline. */
    private static void awaitCondition(BooleanSupplier condition, long timeoutMs, String what) {
        if (!pollUntil(condition, timeoutMs)) {
            fail("timed out after %d ms waiting for %s", timeoutMs, what);
        }
    }

    /** Polls a condition about the child processes until it holds (true) or the deadline passes (false). */
    private static boolean pollUntil(BooleanSupplier condition, long timeoutMs) {
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (!condition.getAsBoolean()) {
            if (System.currentTimeMillis() > deadline) {
                return false;
            }
            poll();
        }
        return true;
    }

    private static void poll() {
        try {
            Thread.sleep(20);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
