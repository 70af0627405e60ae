package dev.sovereign.engine.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Durability;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.journal.FenceEvent;
import dev.sovereign.engine.lease.Lease;
import java.nio.file.Files;
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
 * The contract floor's hand-written SQL ({@link ContractFloor}) against the schema the engine installs today: the
 * guards take its grants and releases, and the engine's own API then reads exactly what a grant and a release of its
 * own would have left (the token the floor minted, the lease gone, the journal rows). When a migration changes what
 * the guards demand, this test fails and the floor is brought along, so the benchmark never measures SQL the ledger
 * would refuse. The guards-off variant must leave the same rows.
 */
class ContractFloorTest {
    @TempDir
    Path dir;

    @Test
    void theGuardsTakeTheFloorsGrantAndReleaseAndTheEngineReadsThem() throws Exception {
        Path file = ContractFloor.createLedger(dir, Durability.NORMAL);
        try (Engine engine = BenchFiles.openEngine(file, Durability.NORMAL);
                ContractFloor floor = ContractFloor.open(file, Durability.NORMAL, true)) {
            long last = 0;
            List<Long> tokens = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                long token = floor.grant();
                assertThat(token).isGreaterThan(last);
                Optional<Lease> held = engine.leases().current(ContractFloor.ACTOR);
                assertThat(held).isPresent();
                assertThat(held.get().token()).isEqualTo(token);
                assertThat(held.get().process()).isEqualTo(ContractFloor.PROCESS);
                assertThat(held.get().attached()).isTrue();
                assertThat(held.get().ttlMs()).isEqualTo(ContractFloor.TTL_MS);

                floor.release(token);
                assertThat(engine.leases().current(ContractFloor.ACTOR)).isEmpty();
                tokens.add(token);
                last = token;
            }
            List<FenceEvent> journal = engine.journal().forResource("actor", ContractFloor.ACTOR);
            List<String> rows = journal.stream()
                    .map(e -> e.kind() + " " + e.token() + " " + e.processIdentity())
                    .toList();
            List<String> expected = new ArrayList<>();
            for (long t : tokens) {
                expected.add(EventKind.LEASE_ACQUIRED + " " + t + " " + ContractFloor.PROCESS);
                expected.add(EventKind.LEASE_RELEASED + " " + t + " " + ContractFloor.PROCESS);
            }
            assertThat(rows).containsExactlyElementsOf(expected);

            // the counter the floor minted from is the engine's: its next grant is above every floor token
            Lease engines = engine.leases().acquire(ContractFloor.ACTOR, Duration.ofMinutes(1));
            assertThat(engines.token()).isGreaterThan(last);
            assertThat(engine.leases().release(ContractFloor.ACTOR, engines.token()))
                    .isTrue();
        }
    }

    @Test
    void withoutTheGuardsTheFloorLeavesTheSameRows() throws Exception {
        Path on = Files.createDirectories(dir.resolve("on"));
        Path off = Files.createDirectories(dir.resolve("off"));
        List<String> withGuards = cycles(ContractFloor.createLedger(on, Durability.NORMAL), true);
        List<String> without = cycles(ContractFloor.createLedger(off, Durability.NORMAL), false);
        assertThat(without).isEqualTo(withGuards);
        assertThat(withGuards).anyMatch(r -> r.startsWith("tombstone cycled"));
    }

    @Test
    void guardsOffMeansNoTriggerIsLeft() throws Exception {
        Path file = ContractFloor.createLedger(dir, Durability.NORMAL);
        try (ContractFloor floor = ContractFloor.open(file, Durability.NORMAL, false);
                Statement s = floor.connection().createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM sqlite_master WHERE type = 'trigger'")) {
            rs.next();
            assertThat(rs.getInt(1)).isZero();
        }
    }

    /** Three grants and releases, then the rows they left (times aside: they differ from run to run). */
    private static List<String> cycles(Path file, boolean guards) throws SQLException {
        try (ContractFloor floor = ContractFloor.open(file, Durability.NORMAL, guards)) {
            for (int i = 0; i < 3; i++) {
                floor.release(floor.grant());
            }
            Connection c = floor.connection();
            List<String> rows = new ArrayList<>();
            rows.addAll(rows(
                    c,
                    "SELECT 'journal', seq, kind, resource_type, resource_id, actor_id, process_identity, token,"
                            + " presented_token, current_token, category, detail FROM fence_events"
                            + " WHERE resource_type = 'actor' ORDER BY seq"));
            rows.addAll(rows(c, "SELECT 'lease', actor_id, token FROM actor_leases ORDER BY actor_id"));
            rows.addAll(rows(c, "SELECT 'tombstone', actor_id, change_seq FROM lease_tombstones ORDER BY actor_id"));
            rows.addAll(rows(c, "SELECT 'tokens', last_token FROM token_counter"));
            rows.addAll(rows(c, "SELECT 'changes', last_change FROM lease_change_counter"));
            // and how many rows every table of the ledger holds: a row a guard's trigger writes elsewhere shows here
            rows.addAll(tableCounts(c));
            return rows;
        }
    }

    /** {@code "count <table> <rows>"} for every table of the ledger, in name order. */
    private static List<String> tableCounts(Connection c) throws SQLException {
        List<String> out = new ArrayList<>();
        for (String table : rows(
                c, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")) {
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
