package dev.sovereign.engine.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.admin.PruneOptions;
import dev.sovereign.engine.admin.Retention;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.internal.postgres.PgMigrator;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.mailbox.Claim;
import dev.sovereign.engine.mailbox.Message;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.AssignmentState;
import dev.sovereign.engine.run.Attempt;
import dev.sovereign.engine.spi.tools.LedgerCopy;
import dev.sovereign.engine.spi.tools.LedgerCopyRefusal;
import dev.sovereign.engine.spi.tools.LedgerCopyReport;
import dev.sovereign.engine.testing.PgTestServer;
import dev.sovereign.engine.testing.Port;
import dev.sovereign.engine.testing.RawPg;
import dev.sovereign.engine.testing.SettableClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sovereign copy}'s engine part (decision 0907): a SQLite ledger made by the real engine, covering every
 * table, copied into a fresh PostgreSQL database from Maven's embedded server, then compared table by table,
 * row by row, column by column; and what the copy must guarantee afterwards: the next grant mints a greater
 * token, a stale holder of the copied history is refused and journalled, the guards are on again, and a refused
 * or failed copy leaves the target as it was.
 */
class LedgerCopyToPostgresTest {
    /** The source tables the target keeps for itself (its own mark and migration record). */
    private static final List<String> NOT_COPIED = List.of("ledger_mark", "schema_migrations", "ledger_retirement");

    @TempDir
    Path dir;

    private final SettableClock clock = new SettableClock();
    private final List<Engine> engines = new ArrayList<>();

    @AfterEach
    void closeEngines() {
        engines.forEach(e -> {
            try {
                e.close();
            } catch (RuntimeException ignored) {
                // closed by the test
            }
        });
    }

    private Engine sqlite(Path file) {
        return sqlite(file, Duration.ofSeconds(10));
    }

    private Engine sqlite(Path file, Duration busyBound) {
        Engine e = Engine.open(EngineConfig.forDatabase(file)
                .dataDirectory(dir.resolve("data"))
                .clock(clock)
                .heartbeat(false)
                .busyBound(busyBound)
                .build());
        engines.add(e);
        return e;
    }

    /** What a copied history needs to show. */
    record History(Path file, long staleToken, String heldActor, long highestToken, long liveProcessCount) {}

    /**
     * A fence bump, grants, a takeover, a refused stale renewal (journalled), a completed run with its receipt, a worker-lost
     * recovery, messages NEW, CLAIMED, DONE, DEAD and re-queued, a released lease (tombstone), a stopped process
     * and supervisor ticks; one worker is still open (a live process) when the copy reads the file.
     */
    private History history() {
        Path file = dir.resolve("ledger.db");
        Engine a = sqlite(file);
        Engine b = sqlite(file);
        Engine lost = sqlite(file);
        Engine supervisor = sqlite(file);
        for (String actor : List.of("alpha", "beta", "gamma", "delta")) {
            a.actors().add(actor);
        }
        // a fence bump first (ledger_history, a FENCE_BUMPED journal row): every token below is of epoch 1
        a.bumpFence(-1);
        Lease first = a.leases().acquire("alpha", Duration.ofSeconds(10));
        clock.advance(Duration.ofSeconds(11));
        Lease takeover = b.leases().acquire("alpha", Duration.ofMinutes(10));
        assertThat(takeover.token()).isGreaterThan(first.token());
        assertThatThrownBy(() -> a.leases().renew("alpha", first.token())).isInstanceOf(Refusal.class);
        // contention: a live lease refused twice in one window, one row and a count (decision 0019)
        assertThat(a.leases().tryAcquire("alpha", Duration.ofSeconds(5))).isEmpty();
        assertThat(a.leases().tryAcquire("alpha", Duration.ofSeconds(5))).isEmpty();

        Assignment done = b.runs().assign("beta", "scripted:ms=1,outcome=completed", "temporary");
        assertThat(b.runs().runAssignment(done.id()).assignment().state()).isEqualTo(AssignmentState.COMPLETED);

        Assignment abandoned = lost.runs().assign("gamma", "scripted", "temporary");
        Lease gamma = lost.leases().acquire("gamma", Duration.ofSeconds(5));
        Attempt attempt = Port.runs(lost).startAttempt(abandoned.id(), gamma.token(), 5_000);
        clock.advance(Duration.ofSeconds(6));
        assertThat(supervisor.supervisor().tick().recovered())
                .singleElement()
                .satisfies(r -> assertThat(r.attemptToken()).isEqualTo(attempt.token()));

        b.leases().acquire("beta", Duration.ofMinutes(10));
        Message fresh = a.mailbox().send("ops", "beta", "new", "stays new", 3);
        Message claimed = a.mailbox().send("ops", "beta", "claimed", "stays claimed", 3);
        Message completed = a.mailbox().send("ops", "beta", "done", "completed", 3);
        Message dead = a.mailbox().send("ops", "beta", "dead", "dead-lettered", 0);
        Message requeued = a.mailbox().send("ops", "beta", "retried", "re-queued once", 2);
        b.mailbox().claim(claimed.id(), "beta", Duration.ofMinutes(5));
        Claim c = b.mailbox().claim(completed.id(), "beta");
        b.mailbox().complete(completed.id(), c.token());
        Claim d = b.mailbox().claim(dead.id(), "beta");
        b.mailbox().deadLetter(dead.id(), d.token());
        Claim r = b.mailbox().claim(requeued.id(), "beta");
        b.mailbox().deadLetter(requeued.id(), r.token());
        assertThat(a.mailbox().find(fresh.id()))
                .get()
                .extracting(Message::state)
                .hasToString("NEW");

        Lease delta = b.leases().acquire("delta", Duration.ofMinutes(1));
        b.leases().release("delta", delta.token());
        supervisor.supervisor().tick();
        clock.advance(Duration.ofSeconds(30));
        lost.heartbeatNow(); // its gamma lease now lives past its row's own expiry: its session keeps it (decision
        // 0509)
        a.close(); // a stopped process
        supervisor.close();
        b.close();
        return new History(file, first.token(), "alpha", tokenCounter(file), 1);
    }

    private static long tokenCounter(Path file) {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT last_token FROM token_counter")) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void everyRowOfEveryTableArrivesAndAKeptSourceIsNotChanged() throws Exception {
        History h = history();
        FileTime modified = Files.getLastModifiedTime(h.file());
        String bytes = digest(h.file());
        PgTestServer.Database db = PgTestServer.freshDatabase();

        LedgerCopyReport report = LedgerCopy.copy(LedgerLocation.file(h.file()), LedgerLocation.parse(db.url()), true);
        assertThat(report.sourceRetired()).isFalse();

        assertThat(digest(h.file())).as("the source's bytes").isEqualTo(bytes);
        assertThat(Files.getLastModifiedTime(h.file())).as("the source's mtime").isEqualTo(modified);
        assertThat(report.highestToken()).isEqualTo(h.highestToken());
        assertThat(report.liveProcesses()).isEqualTo(h.liveProcessCount());
        try (Connection lite = DriverManager.getConnection("jdbc:sqlite:" + h.file());
                Connection pg = db.connect()) {
            List<String> tables = list(
                    lite,
                    "SELECT name FROM sqlite_master WHERE type = 'table'"
                            + " AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'");
            assertThat(tables)
                    .contains(
                            "processes",
                            "actors",
                            "actor_leases",
                            "lease_tombstones",
                            "assignments",
                            "execution_attempts",
                            "receipts",
                            "messages",
                            "fence_events",
                            "supervisor_ticks");
            for (String table : tables) {
                if (NOT_COPIED.contains(table)) {
                    continue;
                }
                List<String> columns = list(lite, "SELECT name FROM pragma_table_info('" + table + "') ORDER BY cid");
                if (table.endsWith("_counter")) {
                    columns = columns.subList(0, 2); // id and the value; PostgreSQL adds last_xact
                }
                List<String> sourceColumns = columns;
                if (table.equals("actor_leases")) {
                    // a lease attached to its holder's session (decision 0509) arrives as the plain lease a reader
                    // sees: its effective renewal and expiry, no attached flag; a release marker (released_at,
                    // released_note) never outlives the statement that writes it, so no committed row has one
                    columns = columns.stream()
                            .filter(c ->
                                    !c.equals("attached") && !c.equals("released_at") && !c.equals("released_note"))
                            .toList();
                    sourceColumns = columns.stream()
                            .map(c -> switch (c) {
                                case "renewed_at" ->
                                    "CASE WHEN attached = 1 THEN max(renewed_at, coalesce((SELECT p.heartbeat_at"
                                            + " FROM processes p WHERE p.identity = process_identity), renewed_at)) ELSE renewed_at END";
                                case "expires_at" ->
                                    "CASE WHEN attached = 1 THEN max(expires_at, coalesce((SELECT p.heartbeat_at"
                                            + " FROM processes p WHERE p.identity = process_identity) + ttl_ms, expires_at))"
                                            + " ELSE expires_at END";
                                default -> c;
                            })
                            .toList();
                }
                if (table.equals("token_counter")) {
                    // PostgreSQL mints from 64 rows (schema version 19, decision 0924): the file's counter is the row
                    // of
                    // its residue; every other row at or below it on its own residue, never below its epoch's start
                    long counter = (Long) rows(lite, table, columns).get("1").get(1);
                    assertThat(rows(pg, table, columns))
                            .as("the stripes of the file's counter")
                            .hasSize(64)
                            .allSatisfy((id, row) -> {
                                long stripe = Long.parseLong(id);
                                long value = ((Number) row.get(1)).longValue();
                                assertThat(Math.floorMod(value, 64L)).isEqualTo(stripe);
                                assertThat(value)
                                        .isLessThanOrEqualTo(Math.max(counter, (counter >> 40 << 40) + stripe))
                                        .isGreaterThan(counter - 64);
                            })
                            .containsEntry(String.valueOf(counter % 64), List.of(counter % 64, counter));
                    continue;
                }
                Map<String, List<Object>> source = rows(lite, table, sourceColumns);
                Map<String, List<Object>> copied = rows(pg, table, columns);
                assertThat(source).as("rows of %s in the source", table).isNotEmpty();
                assertThat(copied).as("every row and column of %s", table).isEqualTo(source);
                if (table.equals("actor_leases")) {
                    assertThat(rows(lite, table, columns))
                            .as("the rows' own expiry is not what a reader sees")
                            .isNotEqualTo(source);
                }
                if (!table.endsWith("_counter")) {
                    assertThat(report.rows()).as("reported rows of %s", table).containsEntry(table, (long)
                            source.size());
                }
            }
            assertThat(scalar(pg, "SELECT count(*) FROM fence_events WHERE kind = 'REJECTED'"))
                    .isPositive();
            assertThat(report.lastJournalSeq()).isEqualTo(scalar(lite, "SELECT max(seq) FROM fence_events"));
            assertThat(scalar(pg, "SELECT count(*) FROM messages WHERE state = 'CLAIMED'"))
                    .isEqualTo(1);
            assertThat(scalar(pg, "SELECT count(*) FROM messages WHERE state = 'DONE'"))
                    .isEqualTo(1);
            assertThat(scalar(pg, "SELECT count(*) FROM messages WHERE state = 'DEAD'"))
                    .isEqualTo(1);
            assertThat(scalar(pg, "SELECT count(*) FROM messages WHERE state = 'NEW' AND retry_count = 1"))
                    .isEqualTo(1);
            assertThat(scalar(pg, "SELECT count(*) FROM receipts WHERE failure_category = 'worker_lost'"))
                    .isEqualTo(1);
            assertThat(scalar(pg, "SELECT lab_sandbox FROM ledger_mark")).isZero();
        }
    }

    /**
     * A ledger pruned under a short policy that was then raised holds a watermark the raised policy alone would not
     * have moved: the copy carries the pair as it is (decision 0018), and the server's guards accept the next prune.
     */
    @Test
    void aLedgerPrunedUnderAShorterPolicyIsCopiedWithItsPolicyAndWatermark() throws Exception {
        Path file = dir.resolve("pruned.db");
        Engine a = sqlite(file);
        a.actors().add("x");
        for (int i = 0; i < 5; i++) {
            a.leases()
                    .release("x", a.leases().acquire("x", Duration.ofSeconds(5)).token());
        }
        clock.advance(Duration.ofHours(2));
        a.leases().acquire("x", Duration.ofSeconds(5));
        a.keepJournalFor(Duration.ofHours(1));
        assertThat(a.prune(PruneOptions.all()).journalRows()).isPositive();
        a.keepJournalFor(Duration.ofDays(30));
        Retention before = a.retention();
        a.close();

        PgTestServer.Database db = PgTestServer.freshDatabase();
        LedgerCopy.copy(LedgerLocation.file(file), LedgerLocation.parse(db.url()));
        Engine onPg = Engine.open(EngineConfig.forDatabase(LedgerLocation.parse(db.url()))
                .heartbeat(false)
                .build());
        engines.add(onPg);
        Retention copied = onPg.retention();
        assertThat(copied.keepJournal()).isEqualTo(Duration.ofDays(30));
        assertThat(copied.prunedBelow()).isEqualTo(before.prunedBelow()).isPositive();
        assertThat(copied.prunedRows()).isEqualTo(before.prunedRows());
        assertThat(onPg.prune(PruneOptions.dryRunOnly()).journalRows()).isZero();
    }

    @Test
    void theNextGrantOnTheServerMintsAGreaterTokenAndAStaleHolderOfTheCopiedHistoryIsRefused() throws Exception {
        History h = history();
        PgTestServer.Database db = PgTestServer.freshDatabase();
        LedgerCopyReport report = LedgerCopy.copy(LedgerLocation.file(h.file()), LedgerLocation.parse(db.url()));

        // the engine opens the copy (every guard verified on open) and fences as it did on the file
        Engine onPg = Engine.open(EngineConfig.forDatabase(LedgerLocation.parse(db.url()))
                .heartbeat(false)
                .build());
        engines.add(onPg);
        onPg.actors().add("epsilon");
        Lease next = onPg.leases().acquire("epsilon", Duration.ofSeconds(30));
        assertThat(next.token()).as("the first grant after the copy").isGreaterThan(h.highestToken());
        long journalled = onPg.journal().lastSeq();
        assertThat(journalled).as("the journal continues past the copied seq").isGreaterThan(report.lastJournalSeq());

        assertThatThrownBy(() -> onPg.leases().renew(h.heldActor(), h.staleToken()))
                .isInstanceOf(Refusal.class);
        try (Connection pg = db.connect()) {
            assertThat(scalar(
                            pg,
                            "SELECT count(*) FROM fence_events WHERE kind = 'REJECTED' AND seq > " + journalled
                                    + " AND presented_token = " + h.staleToken() + " AND resource_id = '"
                                    + h.heldActor() + "'"))
                    .as("the stale holder's refusal is journalled on the server")
                    .isEqualTo(1);
            assertThat(
                            list(
                                    pg,
                                    "SELECT g.tgname FROM pg_trigger g JOIN pg_class r ON r.oid = g.tgrelid"
                                            + " WHERE NOT g.tgisinternal AND r.relnamespace = 'public'::regnamespace AND g.tgenabled <> 'A'"))
                    .as("guards not enabled ALWAYS after the copy")
                    .isEmpty();
            pg.setAutoCommit(false);
            RawPg raw = new RawPg(pg);
            raw.refused("receipts are immutable", "UPDATE receipts SET summary = 'forged'");
            raw.refused("append-only", "DELETE FROM fence_events");
            raw.refused("fence:", "UPDATE assignments SET state = 'COMPLETED' WHERE state = 'FAILED'");
        }
    }

    @Test
    void aTargetThatIsNotEmptyIsRefusedAndLeftAsItWas() throws Exception {
        History h = history();
        PgTestServer.Database db = PgTestServer.freshDatabase();
        LedgerCopy.copy(LedgerLocation.file(h.file()), LedgerLocation.parse(db.url()), true);
        long events;
        long token;
        try (Connection pg = db.connect()) {
            events = scalar(pg, "SELECT count(*) FROM fence_events");
            token = scalar(pg, "SELECT max(last_token) FROM token_counter");
        }

        assertThatThrownBy(() -> LedgerCopy.copy(LedgerLocation.file(h.file()), LedgerLocation.parse(db.url())))
                .isInstanceOfSatisfying(LedgerCopyRefusal.class, r -> {
                    assertThat(r.category()).isEqualTo("target_not_empty");
                    assertThat(r.getMessage()).contains("actors", "fence_events", "token_counter");
                });
        try (Connection pg = db.connect()) {
            assertThat(scalar(pg, "SELECT count(*) FROM fence_events")).isEqualTo(events);
            assertThat(scalar(pg, "SELECT max(last_token) FROM token_counter")).isEqualTo(token);
            assertThat(
                            scalar(
                                    pg,
                                    "SELECT count(*) FROM pg_trigger g JOIN pg_class r ON r.oid = g.tgrelid"
                                            + " WHERE NOT g.tgisinternal AND r.relnamespace = 'public'::regnamespace AND g.tgenabled <> 'A'"))
                    .isZero();
        }
    }

    @Test
    void aRowThePostgresLedgerCannotTakeMidwayLeavesTheTargetEmptyWithItsGuardsOn() throws Exception {
        History h = history();
        // SQLite keeps a text in an INTEGER column; PostgreSQL's bigint refuses it. supervisor_ticks is written
        // late in the copy, after every other table: the failure comes midway.
        try (Connection lite = DriverManager.getConnection("jdbc:sqlite:" + h.file());
                Statement s = lite.createStatement()) {
            s.execute(
                    "INSERT INTO supervisor_ticks (at, process_identity, expired_leases, stale_processes, swept_claims,"
                            + " recovered, failures, report) VALUES ('not a time', 'proc_x', 0, 0, 0, 0, 0, '{}')");
        }
        PgTestServer.Database db = PgTestServer.freshDatabase();

        assertThatThrownBy(() -> LedgerCopy.copy(LedgerLocation.file(h.file()), LedgerLocation.parse(db.url())))
                .isInstanceOf(StorageException.class)
                .hasMessageContaining("supervisor_ticks")
                .hasMessageNotContaining("password");
        try (Connection pg = db.connect()) {
            for (String table : List.of(
                    "processes",
                    "actors",
                    "actor_leases",
                    "assignments",
                    "execution_attempts",
                    "receipts",
                    "messages",
                    "fence_events",
                    "supervisor_ticks",
                    "lease_tombstones")) {
                assertThat(scalar(pg, "SELECT count(*) FROM " + table))
                        .as(table)
                        .isZero();
            }
            assertThat(scalar(pg, "SELECT max(last_token - id) FROM token_counter"))
                    .isZero(); // no stripe minted
            assertThat(
                            scalar(
                                    pg,
                                    "SELECT count(*) FROM pg_trigger g JOIN pg_class r ON r.oid = g.tgrelid"
                                            + " WHERE NOT g.tgisinternal AND r.relnamespace = 'public'::regnamespace AND g.tgenabled <> 'A'"))
                    .isZero();
        }
        // and the same target takes the copy once the source is right again: nothing of the failed one is left (the
        // row goes with its guard lifted and put back as it was: a source without it is refused, as every reader does)
        try (Connection lite = DriverManager.getConnection("jdbc:sqlite:" + h.file());
                Statement s = lite.createStatement()) {
            String guard;
            try (var rs = s.executeQuery(
                    "SELECT sql FROM sqlite_master WHERE name = 'supervisor_ticks_deleted_only_when_old'")) {
                guard = rs.getString(1);
            }
            s.execute("DROP TRIGGER supervisor_ticks_deleted_only_when_old");
            s.execute("DELETE FROM supervisor_ticks WHERE at = 'not a time'");
            s.execute(guard);
        }
        assertThat(LedgerCopy.copy(LedgerLocation.file(h.file()), LedgerLocation.parse(db.url()))
                        .rows())
                .containsKey("supervisor_ticks");
    }

    @Test
    void aWorkerLoginCannotSwitchTheGuardsOffSoItsCopyIsRefusedWithNothingWritten() throws Exception {
        History h = history();
        PgTestServer.Database db = PgTestServer.freshDatabase();
        try (Connection owner = db.connect()) {
            new PgMigrator(false, "test", "test", 5_000).migrate(owner);
        }
        String host = PgTestServer.freshRole("host_a");
        try (Connection owner = db.connect();
                Statement s = owner.createStatement()) {
            s.execute("GRANT sovereign_" + db.name() + "_operator TO " + host);
        }
        String asHost =
                "jdbc:postgresql://localhost:" + db.port() + "/" + db.name() + "?user=" + host + "&password=" + host;

        assertThatThrownBy(() -> LedgerCopy.copy(LedgerLocation.file(h.file()), LedgerLocation.parse(asHost)))
                .isInstanceOfSatisfying(StorageException.class, e -> {
                    assertThat(e.problem()).isEqualTo(StorageException.Problem.READ_ONLY);
                    assertThat(e.getMessage()).contains("must be owner").doesNotContain("password=" + host);
                });
        try (Connection pg = db.connect()) {
            assertThat(scalar(pg, "SELECT count(*) FROM actors")
                            + scalar(pg, "SELECT count(*) FROM fence_events")
                            + scalar(pg, "SELECT max(last_token - id) FROM token_counter"))
                    .isZero();
            assertThat(
                            scalar(
                                    pg,
                                    "SELECT count(*) FROM pg_trigger g JOIN pg_class r ON r.oid = g.tgrelid"
                                            + " WHERE NOT g.tgisinternal AND r.relnamespace = 'public'::regnamespace AND g.tgenabled <> 'A'"))
                    .isZero();
        }
    }

    @Test
    void aLabSandboxAFileTargetAURLSourceAndAForeignFileAreRefusedByName() throws Exception {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        LedgerLocation target = LedgerLocation.parse(db.url());
        Path sandbox = dir.resolve("lab.db");
        engines.add(Engine.open(EngineConfig.forDatabase(sandbox)
                .createAsLabSandbox(true)
                .heartbeat(false)
                .build()));
        assertRefused(LedgerLocation.file(sandbox), target, "source_is_sandbox");
        assertRefused(target, target, "source_is_url");
        assertRefused(LedgerLocation.file(sandbox), LedgerLocation.file(dir.resolve("other.db")), "target_is_file");
        Path foreign = Files.writeString(dir.resolve("notes.db"), "not a database at all, just some words in a file");
        assertRefused(LedgerLocation.file(foreign), target, "source_not_ours");
        assertRefused(LedgerLocation.file(dir.resolve("missing.db")), target, "source_missing");
        try (Connection pg = db.connect()) {
            assertThat(scalar(pg, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"))
                    .as("a refused copy does not even create the schema")
                    .isZero();
        }

        // a ledger of an older schema version is not migrated by a copy that may then refuse it
        PgTestServer.Database older = PgTestServer.freshDatabase();
        try (Connection pg = older.connect();
                Statement s = pg.createStatement()) {
            s.execute("CREATE TABLE schema_migrations (schema_version INTEGER PRIMARY KEY, sovereign_version TEXT,"
                    + " sovereign_commit TEXT, migrated_at BIGINT)");
            s.execute("INSERT INTO schema_migrations VALUES (1, 'old', 'old', 0)");
        }
        Path source = dir.resolve("source.db");
        sqlite(source).close();
        assertRefused(LedgerLocation.file(source), LedgerLocation.parse(older.url()), "target_not_current");
        try (Connection pg = older.connect()) {
            assertThat(scalar(pg, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"))
                    .isEqualTo(1);
        }
    }

    /**
     * Issue 32 item 7: with a worker still writing to the file during the copy, the file went on minting after the
     * copy (token 10 issued on both ledgers), a message was completed on both, and a run FAILED on the file stayed
     * RUNNING on the server. A copy now holds the file's write lock from before its snapshot until the server
     * committed, and retires the file in the same step: nothing the worker commits is missed, and nothing it tries
     * afterwards is accepted by the file.
     */
    @Test
    void aCopyRetiresTheFileInTheSameStepSoAWorkerStillUsingItCanNeverMintWhatTheServerMints() throws Exception {
        Path file = dir.resolve("busy.db");
        Engine worker = sqlite(file);
        worker.actors().add("alpha");
        worker.actors().add("beta");
        Lease held = worker.leases().acquire("beta", Duration.ofMinutes(10));
        Message m = worker.mailbox().send("ops", "beta", "finish me", "", 3);
        Claim claim = worker.mailbox().claim(m.id(), "beta");
        PgTestServer.Database db = PgTestServer.freshDatabase();

        // the worker grants and releases as fast as it can until the file refuses it; told the file is busy (the
        // copy holds it), it tries again, as a worker does
        AtomicReference<Throwable> stoppedBy = new AtomicReference<>();
        AtomicLong grants = new AtomicLong();
        Thread busy = new Thread(() -> {
            try {
                while (true) {
                    try {
                        Lease l = worker.leases().acquire("alpha", Duration.ofSeconds(30));
                        grants.incrementAndGet();
                        worker.leases().release("alpha", l.token());
                    } catch (StorageException e) {
                        if (e.problem() != StorageException.Problem.BUSY) {
                            throw e;
                        }
                    }
                }
            } catch (Throwable t) {
                stoppedBy.set(t);
            }
        });
        busy.setDaemon(true); // a copy that failed to retire the file would leave it looping
        busy.start();
        while (grants.get() < 3) {
            Thread.onSpinWait();
        }
        LedgerCopyReport report = LedgerCopy.copy(LedgerLocation.file(file), LedgerLocation.parse(db.url()));
        busy.join(30_000);

        assertThat(report.sourceRetired()).isTrue();
        assertThat(report.retirementProblem()).isNull();
        assertThat(stoppedBy.get())
                .isInstanceOfSatisfying(
                        StorageException.class,
                        e -> assertThat(e.problem()).isEqualTo(StorageException.Problem.RETIRED));
        assertThat(tokenCounter(file))
                .as("the file minted nothing after the snapshot the server got")
                .isEqualTo(report.highestToken());
        try (Connection pg = db.connect()) {
            // the file's counter is its stripe's row; every other stripe is at or below it on its own residue, never
            // below its own number, so each stripe's next token is above it (schema version 19, decision 0924)
            long h = report.highestToken();
            assertThat(scalar(pg, "SELECT last_token FROM token_counter WHERE id = " + (h % 64)))
                    .isEqualTo(h);
            assertThat(scalar(
                            pg,
                            "SELECT count(*) FROM token_counter WHERE last_token % 64 = id"
                                    + " AND last_token <= greatest(" + h + ", id) AND last_token > " + h + " - 64"))
                    .isEqualTo(64);
        }
        // the file refuses everything its holder still tries; the server has it all
        assertThatThrownBy(() -> worker.mailbox().complete(m.id(), claim.token()))
                .isInstanceOfSatisfying(
                        StorageException.class,
                        e -> assertThat(e.problem()).isEqualTo(StorageException.Problem.RETIRED));
        assertThatThrownBy(() -> worker.leases().renew("beta", held.token()))
                .isInstanceOfSatisfying(
                        StorageException.class,
                        e -> assertThat(e.getMessage()).contains("was moved to a server", "takes no more writes"));
        assertThat(tokenCounter(file)).isEqualTo(report.highestToken());
        try (Connection lite = DriverManager.getConnection("jdbc:sqlite:" + file);
                Statement s = lite.createStatement()) {
            assertThatThrownBy(() -> s.execute("UPDATE token_counter SET last_token = last_token + 1"))
                    .hasMessageContaining("takes no more writes");
            assertThatThrownBy(() -> s.execute("DELETE FROM ledger_retirement")).hasMessageContaining("retired once");
        }
        // a worker started on the file again is refused at once; the file names where it went (status shows it:
        // CliCopyTest); a second copy of the frozen file is refused
        assertThatThrownBy(() -> sqlite(file))
                .isInstanceOfSatisfying(
                        StorageException.class,
                        e -> assertThat(e.problem()).isEqualTo(StorageException.Problem.RETIRED));
        try (Connection lite = DriverManager.getConnection("jdbc:sqlite:" + file);
                Statement s = lite.createStatement();
                ResultSet rs = s.executeQuery("SELECT moved_to FROM ledger_retirement")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1))
                    .isEqualTo(LedgerLocation.parse(db.url()).toString())
                    .doesNotContain("password");
        }
        assertRefused(
                LedgerLocation.file(file),
                LedgerLocation.parse(PgTestServer.freshDatabase().url()),
                "source_retired");
    }

    /**
     * Issue 32 item 1: a production ledger copied into a server ledger created as a lab sandbox would become a
     * sandbox (its terminal fence switchable off by the lab). The copy refuses any target that is not marked as a
     * fresh production ledger, and leaves it as it was.
     */
    /**
     * Decision 0927: a new database's schema is created before the file is locked, so its workers wait on the file
     * only while rows are copied. The copy is held in its schema step here (this test holds the migration lock); the
     * file still takes a grant, with a wait bound far shorter than the copy's, and the copy then carries it.
     */
    @Test
    void aMoveCreatesTheServersSchemaBeforeItLocksTheFileSoWorkersWriteMeanwhile() throws Exception {
        Path file = dir.resolve("moving.db");
        Engine worker = sqlite(file, Duration.ofMillis(500));
        worker.actors().add("alpha");
        PgTestServer.Database db = PgTestServer.freshDatabase();

        AtomicReference<Object> outcome = new AtomicReference<>();
        Thread copy;
        Lease meanwhile;
        try (Connection locker = db.connect();
                Statement s = locker.createStatement()) {
            locker.setAutoCommit(false);
            s.execute("SELECT pg_advisory_xact_lock(" + PgMigrator.MIGRATION_LOCK + ")");
            copy = new Thread(() -> {
                try {
                    outcome.set(LedgerCopy.copy(LedgerLocation.file(file), LedgerLocation.parse(db.url())));
                } catch (Throwable t) {
                    outcome.set(t);
                }
            });
            copy.start();
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (scalar(locker, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted") == 0) {
                assertThat(System.nanoTime())
                        .as("the copy reached the migration lock")
                        .isLessThan(deadline);
                assertThat(outcome.get()).as("the copy is still running").isNull();
                Thread.onSpinWait();
            }

            meanwhile = worker.leases().acquire("alpha", Duration.ofMinutes(5));
            locker.rollback();
        }
        copy.join(60_000);

        assertThat(outcome.get()).isInstanceOf(LedgerCopyReport.class);
        LedgerCopyReport report = (LedgerCopyReport) outcome.get();
        assertThat(report.sourceRetired()).isTrue();
        assertThat(report.highestToken()).isEqualTo(meanwhile.token());
        try (Connection pg = db.connect()) {
            assertThat(scalar(pg, "SELECT token FROM actor_leases WHERE actor_id = 'alpha'"))
                    .isEqualTo(meanwhile.token());
        }
    }

    @Test
    void aTargetCreatedAsALabSandboxIsRefusedSoAProductionLedgerNeverBecomesOne() throws Exception {
        History h = history();
        PgTestServer.Database db = PgTestServer.freshDatabase();
        Engine.open(EngineConfig.forDatabase(db.url())
                        .createAsLabSandbox(true)
                        .heartbeat(false)
                        .build())
                .close();
        // the engine that created it left its (stopped) process row: without it the sandbox is an empty ledger
        ownerWithGuardsOff(db, "processes", "DELETE FROM processes");

        assertThatThrownBy(() -> LedgerCopy.copy(LedgerLocation.file(h.file()), LedgerLocation.parse(db.url())))
                .isInstanceOfSatisfying(LedgerCopyRefusal.class, r -> {
                    assertThat(r.category()).as(r.getMessage()).isEqualTo("target_is_sandbox");
                    assertThat(r.getMessage()).contains("lab sandbox", "nothing was changed");
                });
        try (Connection pg = db.connect()) {
            assertThat(scalar(pg, "SELECT count(*) FROM actors")
                            + scalar(pg, "SELECT count(*) FROM processes")
                            + scalar(pg, "SELECT max(last_token - id) FROM token_counter"))
                    .isZero();
            assertThat(scalar(pg, "SELECT lab_sandbox FROM ledger_mark")).isEqualTo(1);
        }

        // a target whose mark is missing is not a fresh production ledger either
        PgTestServer.Database unmarked = PgTestServer.freshDatabase();
        Engine.open(EngineConfig.forDatabase(unmarked.url()).heartbeat(false).build())
                .close();
        ownerWithGuardsOff(unmarked, "processes", "DELETE FROM processes");
        ownerWithGuardsOff(unmarked, "ledger_mark", "DELETE FROM ledger_mark");
        assertRefused(LedgerLocation.file(h.file()), LedgerLocation.parse(unmarked.url()), "target_is_sandbox");
    }

    /** A statement by the tables' owner with the table's guards off for its one transaction (a hand-made ledger). */
    private static void ownerWithGuardsOff(PgTestServer.Database db, String table, String statement)
            throws SQLException {
        try (Connection pg = db.connect();
                Statement s = pg.createStatement()) {
            s.execute("BEGIN");
            s.execute("ALTER TABLE " + table + " DISABLE TRIGGER USER");
            s.execute(statement);
            s.execute("DO $$ DECLARE t record; BEGIN FOR t IN SELECT tgname FROM pg_trigger"
                    + " WHERE tgrelid = '" + table + "'::regclass AND NOT tgisinternal LOOP"
                    + " EXECUTE format('ALTER TABLE " + table
                    + " ENABLE ALWAYS TRIGGER %I', t.tgname); END LOOP; END $$");
            s.execute("COMMIT");
        }
    }

    @Test
    void aColumnOrTableTheServerLedgerHasNoPlaceForRefusesTheCopyInsteadOfBeingDropped() throws Exception {
        History h = history();
        try (Connection lite = DriverManager.getConnection("jdbc:sqlite:" + h.file());
                Statement s = lite.createStatement()) {
            s.execute("ALTER TABLE actors ADD COLUMN nickname TEXT");
            s.execute("CREATE TABLE actor_notes (actor_id TEXT, note TEXT)");
        }
        PgTestServer.Database db = PgTestServer.freshDatabase();

        assertThatThrownBy(() -> LedgerCopy.copy(LedgerLocation.file(h.file()), LedgerLocation.parse(db.url())))
                .isInstanceOfSatisfying(LedgerCopyRefusal.class, r -> {
                    assertThat(r.category()).isEqualTo("source_not_understood");
                    assertThat(r.getMessage()).contains("column actors.nickname", "table actor_notes");
                });
        try (Connection pg = db.connect()) {
            assertThat(scalar(pg, "SELECT count(*) FROM actors")).isZero();
        }
    }

    private static void assertRefused(LedgerLocation from, LedgerLocation to, String category) {
        assertThatThrownBy(() -> LedgerCopy.copy(from, to))
                .isInstanceOfSatisfying(
                        LedgerCopyRefusal.class,
                        r -> assertThat(r.category()).as(r.getMessage()).isEqualTo(category));
    }

    /** Every row by its first column (the key), values as Long or String (SQLite and PostgreSQL alike). */
    private static Map<String, List<Object>> rows(Connection c, String table, List<String> columns)
            throws SQLException {
        Map<String, List<Object>> rows = new TreeMap<>();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT " + String.join(", ", columns) + " FROM " + table)) {
            while (rs.next()) {
                List<Object> row = new ArrayList<>();
                for (int i = 1; i <= columns.size(); i++) {
                    Object v = rs.getObject(i);
                    row.add(v instanceof Number n ? (Object) n.longValue() : v);
                }
                rows.put(String.valueOf(row.get(0)), row);
            }
        }
        return rows;
    }

    private static List<String> list(Connection c, String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    private static long scalar(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            return rs.next() ? rs.getLong(1) : 0;
        }
    }

    private static String digest(Path file) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
    }
}
