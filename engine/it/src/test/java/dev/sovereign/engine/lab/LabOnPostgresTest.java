package dev.sovereign.engine.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.journal.FenceEvent;
import dev.sovereign.engine.testing.PgTestServer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The lab on a real PostgreSQL server (decision 0909): every scenario runs its real worker JVMs against a lab
 * sandbox on the server and reaches the same verdict as on a file, except {@code clock-skew}, which on a server
 * shows that the skewed worker is refused (the server's clock decides every expiry); the broken-fence switch
 * works on a server sandbox; a real ledger is never made a sandbox nor used by the lab.
 */
class LabOnPostgresTest {
    private static LedgerLocation freshSandbox() {
        return Lab.serverSandbox(
                LedgerLocation.parse(PgTestServer.freshDatabase().url()));
    }

    private static LabVerdict run(LedgerLocation sandbox, String scenario, boolean breakFence, List<LabStep> heard)
            throws InterruptedException {
        return Lab.prepare(scenario, new LabOptions(sandbox, breakFence), heard::add)
                .run();
    }

    static String explain(LabVerdict v) {
        StringBuilder b = new StringBuilder(v.verdict() + ": " + v.headline() + "\n");
        v.steps()
                .forEach(s -> b.append("  ")
                        .append(s.position())
                        .append(' ')
                        .append(s.status())
                        .append(' ')
                        .append(s.title())
                        .append(" — ")
                        .append(s.detail())
                        .append('\n'));
        v.checks()
                .forEach(c -> b.append("  ")
                        .append(c.passed() ? "ok   " : "FAIL ")
                        .append(c.kind())
                        .append(' ')
                        .append(c.statement())
                        .append(" — ")
                        .append(c.evidence())
                        .append('\n'));
        v.workerOutput().forEach((w, lines) -> {
            b.append("  ").append(w).append(":\n");
            lines.forEach(l -> b.append("    ").append(l).append('\n'));
        });
        return b.toString();
    }

    @ParameterizedTest
    @ValueSource(strings = {"two-racers", "gc-pause", "expired-self-reclaim", "stolen-fence"})
    void eachScenarioReachesTheSameVerdictOnAServerSandboxAsOnAFile(String scenario) throws Exception {
        LedgerLocation sandbox = freshSandbox();
        List<LabStep> heard = new CopyOnWriteArrayList<>();
        LabVerdict v = run(sandbox, scenario, false, heard);
        assertThat(v.verdict()).as(explain(v)).isEqualTo(Verdict.HELD);
        assertThat(v.checks()).allMatch(Check::passed);
        assertThat(v.steps()).allMatch(s -> s.status() == LabStep.Status.DONE);
        assertThat(v.location()).isEqualTo(sandbox);
        assertThat(v.database()).as("no file: it ran on the server").isNull();
        // the same narrative as on a file
        assertThat(v.steps())
                .extracting(LabStep::title)
                .isEqualTo(Lab.scenario(scenario).orElseThrow().steps());
    }

    @Test
    void onAServerTheClockSkewScenarioShowsTheSkewedWorkerRefusedBecauseTheServersClockDecides() throws Exception {
        LedgerLocation sandbox = freshSandbox();
        ScenarioInfo info = Lab.scenario("clock-skew", sandbox).orElseThrow();
        assertThat(info.summary()).contains("server's clock decides every expiry");
        assertThat(info.faultSwitchApplies())
                .as("nothing stale ever writes there")
                .isFalse();

        LabVerdict v = run(sandbox, "clock-skew", false, new CopyOnWriteArrayList<>());
        assertThat(v.verdict()).as(explain(v)).isEqualTo(Verdict.HELD);
        assertThat(v.headline()).contains("server's clock decided").contains("cannot steal a lease");
        assertThat(v.steps()).extracting(LabStep::title).isEqualTo(info.steps());
        assertThat(v.steps()).allMatch(s -> s.status() == LabStep.Status.DONE);
        assertThat(v.checks())
                .extracting(Check::statement)
                .contains(
                        "B, its clock 5 s ahead, found A's lease expired and asked for it",
                        "The server's clock decided: B was never granted the actor before A's lease expired by the server's"
                                + " clock",
                        "A kept the actor all along: B was never granted it, A still holds the lease");
        assertThat(v.checks()).allMatch(Check::passed);
        // the skewed worker really ran 5 s ahead, asked, and was refused
        List<String> b = v.workerOutput().get("worker B (" + v.actor() + ")");
        assertThat(b).anyMatch(l -> l.startsWith("started ") && l.contains("clock offset 5000 ms"));
        assertThat(b).anyMatch(l -> l.startsWith("refused") && l.contains("actor_lease_held"));
        assertThat(b).noneMatch(l -> l.startsWith("hosting"));
        // on a file the same scenario still teaches the skew: its narrative is the takeover
        assertThat(Lab.scenario("clock-skew").orElseThrow().steps())
                .contains("By B's clock A's lease expired: B takes the actor over while A is alive");
    }

    @Test
    void aGrantToTheSkewedWorkerIsAViolationOnlyWhenItCameBeforeTheHoldersLeaseExpiredByTheServersClock() {
        long expiry = Instant.parse("2026-12-01T14:25:06.891Z").toEpochMilli();
        String note = "taken over from proc_a (token 1, expired at 2026-12-01T14:25:06.891Z); ttl 1000 ms";
        FenceEvent aGrant = event(1, expiry - 1_000, EventKind.LEASE_ACQUIRED, "proc_a", 1L, null);
        FenceEvent early = event(7, expiry - 400, EventKind.LEASE_TAKEN_OVER, "proc_b", 3L, note);
        FenceEvent lapsed = event(7, expiry + 5, EventKind.LEASE_TAKEN_OVER, "proc_b", 3L, note);
        FenceEvent acquiredWhileHeld = event(7, expiry + 5, EventKind.LEASE_ACQUIRED, "proc_b", 3L, null);
        FenceEvent released = event(5, expiry - 200, EventKind.LEASE_RELEASED, "proc_a", 1L, null);

        assertThat(ClockSkew.earlyGrants(List.of(aGrant, early), "proc_a", "proc_b"))
                .containsExactly(early);
        assertThat(ClockSkew.earlyGrants(List.of(aGrant, lapsed), "proc_a", "proc_b"))
                .isEmpty();
        assertThat(ClockSkew.earlyGrants(List.of(aGrant, acquiredWhileHeld), "proc_a", "proc_b"))
                .containsExactly(acquiredWhileHeld);
        assertThat(ClockSkew.earlyGrants(List.of(aGrant, released, acquiredWhileHeld), "proc_a", "proc_b"))
                .isEmpty();
        assertThat(ClockSkew.earlyGrants(List.of(aGrant), "proc_a", "proc_b")).isEmpty();
    }

    private static FenceEvent event(long seq, long at, EventKind kind, String process, Long token, String detail) {
        return new FenceEvent(
                seq, at, kind, "actor", "clock-skew-1", "clock-skew-1", process, token, null, null, null, detail);
    }

    @Test
    void theBrokenFenceSwitchWorksOnAServerSandboxAndTellsTheSameStoryInTheSameWords() throws Exception {
        LabVerdict v = run(freshSandbox(), "gc-pause", true, new CopyOnWriteArrayList<>());
        assertThat(v.verdict()).as(explain(v)).isEqualTo(Verdict.VIOLATED);
        assertThat(v.faultInjected()).isTrue();
        // the server refuses B's write in its own words; the narrative says what the ledger says (issue 31 item 13)
        assertThat(v.steps().get(6).detail()).as(explain(v)).matches(GcPauseBrokenFenceWords.STALE_WRITE);
        assertThat(v.steps().get(7).detail()).as(explain(v)).matches(GcPauseBrokenFenceWords.RIGHTFUL_RESULT_LOST);
        assertThat(v.headline()).as(explain(v)).matches(GcPauseBrokenFenceWords.BROKEN_HEADLINE);
    }

    @Test
    void aRealLedgerOnAServerIsNeverMadeASandboxNorTouchedAndTheBrokenFenceIsRefusedThere() throws Exception {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        LedgerLocation real = LedgerLocation.parse(db.url());
        try (Engine e =
                Engine.open(EngineConfig.forDatabase(real).heartbeat(false).build())) {
            e.actors().add("payments");
        }
        long[] before = counts(db);
        assertThatThrownBy(() -> Lab.serverSandbox(real)).isInstanceOfSatisfying(Refusal.class, r -> {
            assertThat(r.category()).isEqualTo(RefusalCategory.INVALID_ARGUMENT);
            assertThat(r.getMessage())
                    .contains("holds a Sovereign ledger that is not a lab sandbox")
                    .contains("left untouched");
        });
        // a run handed the real ledger directly may not break its fence: refused before any worker starts
        assertThatThrownBy(() -> run(real, "stolen-fence", true, new CopyOnWriteArrayList<>()))
                .isInstanceOfSatisfying(
                        Refusal.class, r -> assertThat(r.getMessage()).contains("only on a lab sandbox"));
        long[] after = counts(db);
        assertThat(after[0]).as("actors").isEqualTo(before[0]);
        assertThat(after[2]).as("journal").isEqualTo(before[2]);
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT lab_sandbox FROM ledger_mark")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getInt(1)).as("still not a sandbox").isZero();
        }

        // a database holding someone else's tables is refused too
        PgTestServer.Database other = PgTestServer.freshDatabase();
        try (Connection c = other.connect();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE invoices (id int primary key)");
        }
        assertThatThrownBy(() -> Lab.serverSandbox(LedgerLocation.parse(other.url())))
                .isInstanceOfSatisfying(
                        Refusal.class,
                        r -> assertThat(r.getMessage()).contains("holds tables that are not a Sovereign ledger"));

        // beside the real ledger, an empty schema its owner created becomes the sandbox
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA lab");
        }
        LedgerLocation inSchema = LedgerLocation.parse(db.url() + "&currentSchema=lab");
        assertThat(Lab.serverSandbox(inSchema)).isEqualTo(inSchema);
        assertThat(Lab.serverSandbox(inSchema)).as("used again").isEqualTo(inSchema);
        try (Engine e = Engine.openExisting(
                EngineConfig.forDatabase(inSchema).heartbeat(false).build())) {
            assertThat(e.isLabSandbox()).isTrue();
            assertThat(e.actors().find("operator")).isPresent();
            assertThat(e.actors().find("payments")).isEmpty();
        }
        assertThat(counts(db)[0]).as("the real ledger's actors").isEqualTo(before[0]);
    }

    private static long[] counts(PgTestServer.Database db) throws Exception {
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT (SELECT count(*) FROM public.actors), (SELECT count(*) FROM"
                        + " public.processes), (SELECT count(*) FROM public.fence_events)")) {
            rs.next();
            return new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3)};
        }
    }
}
