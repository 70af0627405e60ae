package dev.sovereign.engine.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.journal.FenceEvent;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.testing.PgTestServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ContractFloorTest} on PostgreSQL: the contract floor's hand-written SQL ({@link PgContractFloor}) against the
 * schema and guards the engine installs today, read back through the engine's API; and the guards-off variant
 * leaves the same rows. A fresh database on the test suite's embedded server per test.
 */
class PgContractFloorTest {
    @TempDir
    Path dir;

    /** A fresh engine-created ledger holding the floor's actor; the engine that made it stays open. */
    private static Engine ledger(String url, Path dir) {
        Engine e = PgBench.openEngine(url, dir);
        e.actors().add(PgContractFloor.ACTOR);
        return e;
    }

    @Test
    void theGuardsTakeTheFloorsGrantAndReleaseAndTheEngineReadsThem() throws Exception {
        String url = PgTestServer.freshDatabase().url();
        try (Engine engine = ledger(url, dir);
                PgContractFloor floor = PgContractFloor.open(url, true)) {
            long last = 0;
            List<Long> tokens = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                long token = floor.grant();
                assertThat(token).isGreaterThan(last);
                Optional<Lease> held = engine.leases().current(PgContractFloor.ACTOR);
                assertThat(held).isPresent();
                assertThat(held.get().token()).isEqualTo(token);
                assertThat(held.get().process()).isEqualTo(PgContractFloor.PROCESS);
                assertThat(held.get().attached()).isTrue();
                assertThat(held.get().ttlMs()).isEqualTo(PgContractFloor.TTL_MS);

                floor.release(token);
                assertThat(engine.leases().current(PgContractFloor.ACTOR)).isEmpty();
                tokens.add(token);
                last = token;
            }
            assertThat(floor.batches()).isEqualTo(6);
            List<FenceEvent> journal = engine.journal().forResource("actor", PgContractFloor.ACTOR);
            List<String> rows = journal.stream()
                    .map(e -> e.kind() + " " + e.token() + " " + e.processIdentity())
                    .toList();
            List<String> expected = new ArrayList<>();
            for (long t : tokens) {
                expected.add(EventKind.LEASE_ACQUIRED + " " + t + " " + PgContractFloor.PROCESS);
                expected.add(EventKind.LEASE_RELEASED + " " + t + " " + PgContractFloor.PROCESS);
            }
            assertThat(rows).containsExactlyElementsOf(expected);

            // the counter the floor minted from is the engine's: its next grant is above every floor token
            Lease engines = engine.leases().acquire(PgContractFloor.ACTOR, Duration.ofMinutes(1));
            assertThat(engines.token()).isGreaterThan(last);
            assertThat(engine.leases().release(PgContractFloor.ACTOR, engines.token()))
                    .isTrue();
        }
    }

    @Test
    void withoutTheGuardsTheFloorLeavesTheSameRows() throws Exception {
        List<String> withGuards = cycles(true);
        List<String> without = cycles(false);
        assertThat(without).isEqualTo(withGuards);
        assertThat(withGuards).anyMatch(r -> r.startsWith("tombstone cycled"));
    }

    /** Three grants and releases on a fresh ledger, then the rows they left (times aside). */
    private List<String> cycles(boolean guards) throws SQLException {
        String url = PgTestServer.freshDatabase().url();
        ledger(url, dir.resolve(guards ? "on" : "off")).close();
        try (PgContractFloor floor = PgContractFloor.open(url, guards)) {
            Connection c = floor.connection();
            if (!guards) {
                assertThat(
                                rows(
                                        c,
                                        "SELECT 'triggers', count(*) FROM pg_trigger t JOIN pg_class r ON r.oid = t.tgrelid"
                                                + " WHERE NOT t.tgisinternal AND r.relnamespace = current_schema()::regnamespace"))
                        .containsExactly("triggers 0");
            }
            for (int i = 0; i < 3; i++) {
                floor.release(floor.grant());
            }
            List<String> rows = new ArrayList<>();
            rows.addAll(rows(
                    c,
                    "SELECT 'journal', kind, resource_type, resource_id, actor_id, process_identity, token,"
                            + " presented_token, current_token, category, detail FROM fence_events"
                            + " WHERE resource_type = 'actor' ORDER BY seq"));
            rows.addAll(rows(c, "SELECT 'lease', actor_id, token FROM actor_leases ORDER BY actor_id"));
            // a tombstone's marker is the releasing transaction's id (schema version 18), which differs between two
            // databases: compared is that it was written in a later transaction than the ledger's creation
            rows.addAll(rows(
                    c,
                    "SELECT 'tombstone', actor_id, change_seq > (SELECT min(xmin::text::bigint) FROM schema_migrations)"
                            + " FROM lease_tombstones ORDER BY actor_id"));
            rows.addAll(rows(c, "SELECT 'tokens', id, last_token FROM token_counter ORDER BY id"));
            rows.addAll(rows(c, "SELECT 'changes', last_change FROM lease_change_counter"));
            // and how many rows every table of the ledger holds: a row a guard's trigger writes elsewhere shows here
            rows.addAll(tableCounts(c));
            c.commit();
            return rows;
        }
    }

    /** {@code "count <table> <rows>"} for every table of the ledger, in name order. */
    private static List<String> tableCounts(Connection c) throws SQLException {
        List<String> out = new ArrayList<>();
        for (String table : rows(
                c,
                "SELECT c.relname FROM pg_class c WHERE c.relkind = 'r' AND c.relnamespace = current_schema()::regnamespace ORDER BY c.relname")) {
            out.addAll(rows(c, "SELECT 'count', '" + table + "', count(*) FROM " + table));
        }
        return out;
    }

    private static List<String> rows(Connection c, String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                StringBuilder b = new StringBuilder(rs.getString(1));
                for (int i = 2; i <= n; i++) {
                    b.append(' ').append(rs.getString(i));
                }
                out.add(b.toString());
            }
        }
        return out;
    }
}
