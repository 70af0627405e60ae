package dev.sovereign.engine.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.Ledgers;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.mailbox.Claim;
import dev.sovereign.engine.provider.ProviderResult;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.testing.Contract;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import dev.sovereign.engine.testing.TestBackend;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The operators' reader of the backend under test shows what SQLite's reader shows for the same engine
 * operations — the same rows, tokens, times, counts and journal sentences, modulo the random ids a ledger mints
 * (process identities, assignment and attempt ids, message ids) — and its change marker moves with every kind
 * of committed change. On SQLite this compares two SQLite files (the script is deterministic); on PostgreSQL
 * (engine/postgres-it) it is the PostgreSQL reader against SQLite's, the server's clock pinned to the test's.
 */
@Contract
abstract class AdminReaderContract {
    /** The backend this class's ledgers are on: each backend's module has its subclass (decision 0015). */
    protected abstract TestBackend backend();

    @RegisterExtension
    final TempDatabase temp = new TempDatabase(this::backend);

    private final SettableClock clock = new SettableClock();

    /** The same operations on any ledger; {@code open} opens an engine labelled as asked. */
    private static void script(Function<String, Engine> open, SettableClock clock) {
        Engine a = open.apply("worker A");
        Engine b = open.apply("worker B");
        a.actors().add("alpha");
        a.actors().add("beta");
        a.actors().add("gamma");
        Lease alpha = a.leases().acquire("alpha", Duration.ofSeconds(9));
        Lease beta = a.leases().acquire("beta", Duration.ofSeconds(5));
        assertThatThrownBy(() -> b.leases().acquire("alpha", Duration.ofSeconds(5)))
                .isInstanceOf(Refusal.class);
        clock.advance(Duration.ofSeconds(2));
        a.leases().renew("alpha", alpha.token());
        a.leases().release("beta", beta.token());
        assertThatThrownBy(() -> a.leases().renew("beta", beta.token())).isInstanceOf(Refusal.class);
        b.providers().register("echo", arg -> job -> ProviderResult.completed("said " + arg));
        Assignment run = b.runs().assign("gamma", "echo:hello");
        b.runs().runAssignment(run.id());
        clock.advance(Duration.ofSeconds(1)); // rows of one instant are ordered by their (random) ids
        b.runs().assign("gamma", "echo:later");
        clock.advance(Duration.ofSeconds(1));
        var m1 = a.mailbox().send("alpha", "gamma", "first", "body one");
        clock.advance(Duration.ofSeconds(1));
        a.mailbox().send("beta", "gamma", "second", "body two");
        b.leases().acquire("gamma", Duration.ofSeconds(30));
        Claim claim = b.mailbox().claim(m1.id(), "gamma");
        b.mailbox().complete(m1.id(), claim.token());
        clock.advance(Duration.ofSeconds(1));
        b.heartbeatNow();
        a.supervisor().tick();
    }

    @Test
    void theReaderShowsWhatSqlitesReaderShowsForTheSameOperations() {
        List<Engine> underTest = new ArrayList<>();
        script(
                label -> {
                    Engine e = temp.open(temp.config(clock).processLabel(label).build());
                    underTest.add(e);
                    return e;
                },
                clock);
        SettableClock sqliteClock = new SettableClock(clock.millis() - 6_000); // the script moved its clock 6 s
        LedgerLocation file = LedgerLocation.file(temp.dir().resolve("reference.db"));
        List<Engine> reference = new ArrayList<>();
        try {
            script(
                    label -> {
                        Engine e = Engine.open(EngineConfig.forDatabase(file)
                                .dataDirectory(temp.dir().resolve("reference.data"))
                                .clock(sqliteClock)
                                .heartbeat(false)
                                .processLabel(label)
                                .build());
                        reference.add(e);
                        return e;
                    },
                    sqliteClock);
            String mine;
            String theirs;
            try (AdminReader r =
                    Ledgers.openReader(temp.location(), temp.dir().resolve("sovereign.data"), clock, ZoneOffset.UTC)) {
                mine = render(r, underTest);
            }
            try (AdminReader r =
                    Ledgers.openReader(file, temp.dir().resolve("reference.data"), sqliteClock, ZoneOffset.UTC)) {
                theirs = render(r, reference);
            }
            assertThat(mine)
                    .isEqualTo(theirs)
                    .contains(
                            "REJECTED",
                            "MESSAGE_DONE",
                            "COMPLETED",
                            "lease alpha <worker A> <t0>",
                            "lastToken=at or above every token",
                            "about ACTOR",
                            "about PROCESS")
                    .doesNotContain("proc_");
        } finally {
            reference.forEach(Engine::close);
        }
    }

    /**
     * The snapshot and the journal as text with every minted id replaced by a name that depends only on the
     * order of operations: processes by their labels, assignments, attempts and messages by order of creation.
     */
    private static String render(AdminReader reader, List<Engine> engines) {
        AdminSnapshot s = reader.snapshot();
        List<JournalEntry> events = reader.eventsSince(0, 10_000);
        Map<String, String> names = new LinkedHashMap<>();
        for (Engine e : engines) {
            ProcessRow p = s.processes().stream()
                    .filter(x -> x.process().identity().equals(e.processIdentity()))
                    .findFirst()
                    .orElseThrow();
            names.put(p.process().identity(), "<" + p.process().label() + ">");
            names.put(p.process().shortId(), "<" + p.process().label() + " short>");
        }
        Consumer<String> name = id -> {
            if (id != null) {
                names.putIfAbsent(id, "<id" + names.size() + ">");
            }
        };
        events.stream().filter(e -> !e.resourceType().equals("actor")).forEach(e -> name.accept(e.resourceId()));
        // tokens by the order the journal first names them: the backends mint different numbers for the same
        // operations (PostgreSQL from the actor's stripe of the counter, decision 0924) in the same per-actor order
        Map<Long, String> tokenNames = new java.util.HashMap<>();
        long[] highest = {0};
        for (JournalEntry e : events) {
            for (Long t : java.util.Arrays.asList(e.token(), e.presentedToken(), e.currentToken())) {
                if (t != null) {
                    tokenNames.putIfAbsent(t, "<t" + tokenNames.size() + ">");
                    highest[0] = Math.max(highest[0], t);
                }
            }
        }
        java.util.function.Function<Long, String> tok =
                t -> t == null ? "null" : tokenNames.getOrDefault(t, String.valueOf(t));
        StringBuilder out = new StringBuilder();
        out.append("lastToken=")
                .append(s.lastToken() >= highest[0] ? "at or above every token" : "below a token: " + s.lastToken())
                .append(" takenAt=")
                .append(s.takenAt())
                .append(" counts=")
                .append(s.counts())
                .append('\n');
        s.leases()
                .forEach(l -> out.append("lease ")
                        .append(l.actor())
                        .append(' ')
                        .append(l.holder() == null ? "-" : l.holder().identity())
                        .append(' ')
                        .append(l.holder() == null ? String.valueOf(l.token()) : tok.apply(l.token()))
                        .append(' ')
                        .append(l.ttlMs())
                        .append(' ')
                        .append(l.acquiredAt())
                        .append(' ')
                        .append(l.renewedAt())
                        .append(' ')
                        .append(l.expiresAt())
                        .append(' ')
                        .append(l.renewals())
                        .append('\n'));
        s.processes().stream()
                .sorted(Comparator.comparing((ProcessRow p) -> p.process().label()))
                .map(p -> "process " + p.process().identity() + " " + p.kind() + " " + p.startedAt()
                        + " " + p.heartbeatAt() + " " + p.heartbeatIntervalMs() + " " + p.stoppedAt() + " "
                        + p.leasesHeld()
                        + " " + p.activeAttempts() + " " + p.lastClaim() + " "
                        + p.process().pid() + " " + p.process().host())
                .forEach(p -> out.append(p).append('\n'));
        s.assignments()
                .forEach(x -> out.append("assignment ")
                        .append(x.id())
                        .append(' ')
                        .append(x.actor())
                        .append(' ')
                        .append(x.providerSpec())
                        .append(' ')
                        .append(x.state())
                        .append(' ')
                        .append(tok.apply(x.currentAttemptToken()))
                        .append(' ')
                        .append(x.attempts())
                        .append(' ')
                        .append(x.createdAt())
                        .append(' ')
                        .append(x.updatedAt())
                        .append(' ')
                        .append(
                                x.receipt() == null
                                        ? "-"
                                        : x.receipt().status() + " "
                                                + tok.apply(x.receipt().attemptToken()) + " "
                                                + x.receipt().summary() + " "
                                                + x.receipt().outcomeKnown() + " "
                                                + x.receipt().attemptId()
                                                + " " + x.receipt().processIdentity())
                        .append('\n'));
        s.attempts()
                .forEach(x -> out.append("attempt ")
                        .append(x.id())
                        .append(' ')
                        .append(x.assignmentId())
                        .append(' ')
                        .append(x.process().identity())
                        .append(' ')
                        .append(tok.apply(x.token()))
                        .append(' ')
                        .append(tok.apply(x.leaseToken()))
                        .append(' ')
                        .append(x.state())
                        .append(' ')
                        .append(x.current())
                        .append(' ')
                        .append(x.startedAt())
                        .append(' ')
                        .append(x.endedAt())
                        .append('\n'));
        s.messages()
                .forEach(m -> out.append("message ")
                        .append(m.id())
                        .append(' ')
                        .append(m.sender())
                        .append(' ')
                        .append(m.recipient())
                        .append(' ')
                        .append(m.subject())
                        .append(' ')
                        .append(m.state())
                        .append(' ')
                        .append(tok.apply(m.claimToken()))
                        .append(' ')
                        .append(m.createdAt())
                        .append(' ')
                        .append(m.updatedAt())
                        .append('\n'));
        s.lastTick()
                .ifPresent(t -> out.append("tick ")
                        .append(t.at())
                        .append(' ')
                        .append(t.process().identity())
                        .append(' ')
                        .append(t.report())
                        .append('\n'));
        events.forEach(e -> out.append("event ")
                .append(e.at())
                .append(' ')
                .append(e.kind())
                .append(' ')
                .append(e.resourceType())
                .append(' ')
                .append(e.resourceId())
                .append(' ')
                .append(e.actor())
                .append(' ')
                .append(e.process() == null ? "-" : e.process().identity())
                .append(' ')
                .append(tok.apply(e.token()))
                .append(' ')
                .append(tok.apply(e.presentedToken()))
                .append(' ')
                .append(tok.apply(e.currentToken()))
                .append(' ')
                .append(e.category())
                .append(' ')
                .append(e.sentence())
                .append('\n'));
        reader.recentRejections(10)
                .forEach(r -> out.append("rejection ").append(r.sentence()).append('\n'));
        // an actor's page and a process's page (issue 17, item 7): the backend's own index-backed reads
        for (JournalSubject subject : List.of(
                JournalSubject.actor("alpha"),
                JournalSubject.process(engines.get(0).processIdentity()))) {
            JournalSlice slice = reader.journalAbout(subject, 5);
            out.append("about ")
                    .append(subject.kind())
                    .append(' ')
                    .append(slice.total())
                    .append(' ')
                    .append(slice.wholeJournal())
                    .append('\n');
            slice.entries()
                    .forEach(e -> out.append("  ")
                            .append(e.seq())
                            .append(' ')
                            .append(e.kind())
                            .append(' ')
                            .append(e.sentence())
                            .append('\n'));
        }
        String text = java.util.regex.Pattern.compile("(token )(\\d+)")
                .matcher(out.toString())
                .replaceAll(m ->
                        java.util.regex.Matcher.quoteReplacement(m.group(1) + tok.apply(Long.parseLong(m.group(2)))));
        // longest first, so a short id inside a longer one is never replaced first
        List<String> ids = new ArrayList<>(names.keySet());
        ids.sort((x, y) -> y.length() - x.length());
        for (String id : ids) {
            text = text.replace(id, names.get(id));
        }
        return text;
    }

    @Test
    void theChangeMarkerMovesWithEveryKindOfCommittedChange() {
        Engine a = temp.open(temp.config(clock).processLabel("worker A").build());
        a.actors().add("alpha");
        a.actors().add("gamma");
        try (AdminReader r =
                Ledgers.openReader(temp.location(), temp.dir().resolve("sovereign.data"), clock, ZoneOffset.UTC)) {
            long[] last = {steady(r)};
            Consumer<String> moved = what -> {
                long now = r.changeMarker();
                assertThat(now).as("the change marker after " + what).isNotEqualTo(last[0]);
                last[0] = steady(r);
            };
            Lease l = a.leases().acquire("alpha", Duration.ofSeconds(9));
            moved.accept("a grant");
            a.leases().renew("alpha", l.token());
            moved.accept("a renewal");
            a.heartbeatNow();
            moved.accept("a heartbeat");
            a.leases().release("alpha", l.token());
            moved.accept("a release");
            var m = a.mailbox().send("alpha", "gamma", "hello", "body");
            moved.accept("a message sent");
            a.leases().acquire("gamma", Duration.ofSeconds(30));
            moved.accept("a second grant");
            a.mailbox().claim(m.id(), "gamma");
            moved.accept("a claim");
            a.runs().assign("gamma", "scripted:ms=1");
            moved.accept("an assignment");
            a.supervisor().tick();
            moved.accept("a supervisor tick");
            assertThat(r.snapshot().changeMarker())
                    .as("a snapshot with nothing new carries the marker already seen")
                    .isEqualTo(last[0]);
        }
    }

    /**
     * The marker once two reads in a row agree: nothing committed between them. (A server's marker may also move
     * for a commit elsewhere on the server, e.g. its own statistics; it then settles again at once.)
     */
    private static long steady(AdminReader r) {
        long before = r.changeMarker();
        for (int i = 0; i < 20; i++) {
            long now = r.changeMarker();
            if (now == before) {
                return now;
            }
            before = now;
        }
        throw new AssertionError("the change marker never stood still while nothing was written");
    }
}
