package dev.sovereign.engine.internal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.admin.EpochStart;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.FencingTokens;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.testing.PgTestServer;
import dev.sovereign.engine.testing.RawPg;
import dev.sovereign.engine.testing.Stripes;
import java.sql.Connection;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The token counter on PostgreSQL (issue 32 item 2, issue 26 item 7; decisions 0603-0605): a worker login moves it
 * only by minting — one step, within its epoch, while the ledger is not halted — and cannot wind it to the end of
 * its range (which stopped every later grant "bigint out of range", for good); only the ledger's owner starts a new
 * epoch, and only as a history row states it; a ledger put back (here: the owner rewinding the counter with its
 * guard off, as a pg_restore without a bump would leave it) is detected by the engine that saw more, halted for
 * every engine, and ended by the owner's fence bump.
 */
class PgCounterGuardTest {
    private static final String GUARD = "fence: the fencing-token counter moves only by one step";

    private PgTestServer.Database db;
    private Connection owner;
    private Connection worker;
    private RawPg asOwner;
    private RawPg asWorker;

    @BeforeEach
    void open() throws Exception {
        db = PgTestServer.freshDatabase();
        try (Engine created = engine()) {
            created.actors().add("a");
            created.actors().add("b");
            created.actors().add("c");
        }
        owner = db.connect();
        asOwner = new RawPg(owner);
        String host = PgTestServer.freshRole("host_c");
        asOwner.exec("GRANT sovereign_" + db.name() + "_worker TO " + host);
        worker = db.dataSource(host, host).getConnection();
        asWorker = new RawPg(worker);
    }

    @AfterEach
    void close() throws Exception {
        worker.close();
        owner.close();
    }

    private Engine engine() {
        return Engine.open(EngineConfig.forDatabase(db.url()).heartbeat(false).build());
    }

    @Test
    void aWorkerLoginMovesTheCounterOnlyByMinting() {
        asWorker.refused(GUARD, "UPDATE token_counter SET last_token = 9223372036854775807 WHERE id = 1");
        asWorker.refused(GUARD, "UPDATE token_counter SET last_token = last_token + 2 WHERE id = 1");
        asWorker.refused(
                GUARD, "UPDATE token_counter SET last_token = last_token + 1 WHERE id = 1"); // one stripe's step is 64
        asWorker.refused(GUARD, "UPDATE token_counter SET last_token = last_token + 128 WHERE id = 1");
        asWorker.refused(GUARD, "UPDATE token_counter SET last_token = " + FencingTokens.startOf(1) + " WHERE id = 1");
        asWorker.refused(
                GUARD, "UPDATE token_counter SET last_token = " + (FencingTokens.startOf(1) + 1) + " WHERE id = 1");
        asWorker.refused("only increases", "UPDATE token_counter SET last_token = 0 WHERE id = 1");
        asWorker.refused("only increases", "UPDATE token_counter SET halted = true WHERE id = 1");
        // a new epoch is the owner's: a worker can neither write its history row nor jump without one
        asWorker.refused(
                "only the ledger's owner",
                "INSERT INTO ledger_history (at, kind, epoch, from_token, to_token,"
                        + " detail) VALUES (0, 'bump', 1, 0, " + FencingTokens.startOf(1) + ", 'x')");
        asWorker.passes(RawPg.MINT); // one step of every stripe
        assertThat(asOwner.scalar("SELECT count(*) FROM token_counter WHERE last_token = id + 64"))
                .isEqualTo(Stripes.COUNT);
        try (Engine e = engine()) {
            assertThat(e.leases().acquire("a", Duration.ofMinutes(1)).token())
                    .isEqualTo(Stripes.nth("a", 2)); // every later grant works
        }
    }

    @Test
    void aWorkerReportOfABackwardsLedgerHaltsMintingUntilTheOwnersBump() {
        asWorker.passes("INSERT INTO ledger_history (at, kind, epoch, from_token, to_token, seen_token, detail)"
                + " VALUES (0, 'backwards', 0, 63, 63, 100, 'a report')"); // the counter: the highest stripe, 63
        assertThat(asOwner.scalar("SELECT count(*) FROM token_counter WHERE halted"))
                .isEqualTo(Stripes.COUNT);
        asWorker.refused("the ledger went backwards", RawPg.MINT);
        asWorker.refused("only increases", "UPDATE token_counter SET halted = false WHERE id = 1");
        try (Engine e = engine()) {
            assertThatThrownBy(() -> e.leases().acquire("a", Duration.ofMinutes(1)))
                    .isInstanceOfSatisfying(
                            StorageException.class,
                            x -> assertThat(x.problem()).isEqualTo(StorageException.Problem.WENT_BACKWARDS))
                    .hasMessageContaining("sovereign fence bump");
            EpochStart s = e.bumpFence(-1); // the engine connects as the owner here
            assertThat(s.epoch()).isEqualTo(1);
            assertThat(e.leases().acquire("a", Duration.ofMinutes(1)).token())
                    .isEqualTo(FencingTokens.startOf(1) + Stripes.nth("a", 1));
        }
    }

    @Test
    void anEpochsLastTokenIsItsLastAndTheGrantSaysToBump() {
        // the owner winds the counter to the epoch's last token, its guard off for the one transaction
        asOwner.passes(
                "ALTER TABLE token_counter DISABLE TRIGGER token_counter_guard",
                // the last token of its epoch that the stripe of "a" issues
                "UPDATE token_counter SET last_token = " + (FencingTokens.EPOCH_SPAN - Stripes.COUNT + Stripes.of("a"))
                        + " WHERE id = " + Stripes.of("a"),
                "ALTER TABLE token_counter ENABLE ALWAYS TRIGGER token_counter_guard");
        asWorker.refused("has issued every token of its epoch", RawPg.MINT);
        try (Engine e = engine()) {
            assertThatThrownBy(() -> e.leases().acquire("a", Duration.ofMinutes(1)))
                    .isInstanceOfSatisfying(
                            StorageException.class,
                            x -> assertThat(x.problem()).isEqualTo(StorageException.Problem.EPOCH_EXHAUSTED))
                    .hasMessageContaining("sovereign fence bump");
            e.bumpFence(-1);
            assertThat(e.leases().acquire("a", Duration.ofMinutes(1)).token())
                    .isEqualTo(FencingTokens.startOf(1) + Stripes.nth("a", 1));
        }
    }

    @Test
    void aCounterOutOfItsHistorysRangeIsRefusedAtOpenInOneSentence() {
        asOwner.passes(
                "ALTER TABLE token_counter DISABLE TRIGGER token_counter_guard",
                "UPDATE token_counter SET last_token = 9223372036854775807 WHERE id = 1",
                "ALTER TABLE token_counter ENABLE ALWAYS TRIGGER token_counter_guard");
        assertThatThrownBy(this::engine)
                .isInstanceOfSatisfying(
                        StorageException.class,
                        x -> assertThat(x.problem()).isEqualTo(StorageException.Problem.CORRUPT))
                .hasMessageContaining("holds 9223372036854775807")
                .hasMessageContaining("written by hand");
    }

    @Test
    void aLedgerPutBackIsDetectedByTheEngineThatSawMoreAndEveryEngineIsHaltedUntilTheBump() {
        try (Engine one = engine();
                Engine two = engine()) {
            // "a" and "b" mint from stripes 10 and 62: b's token is the higher of the two
            assertThat(one.leases().acquire("a", Duration.ofMinutes(1)).token()).isEqualTo(Stripes.nth("a", 1));
            assertThat(two.leases().acquire("b", Duration.ofMinutes(1)).token()).isEqualTo(Stripes.nth("b", 1));
            assertThat(Stripes.nth("b", 1)).isGreaterThan(Stripes.nth("a", 1));
            // put back to before b's grant without a bump (as a pg_restore of a dump taken after a's would leave it)
            asOwner.passes(
                    "ALTER TABLE token_counter DISABLE TRIGGER token_counter_guard",
                    "UPDATE token_counter SET last_token = id WHERE id = " + Stripes.of("b"),
                    "ALTER TABLE token_counter ENABLE ALWAYS TRIGGER token_counter_guard");
            // its beat reads the counter in the statement that stamps its session: it finds out first
            assertThatThrownBy(two::heartbeatNow)
                    .isInstanceOfSatisfying(
                            StorageException.class,
                            x -> assertThat(x.problem()).isEqualTo(StorageException.Problem.WENT_BACKWARDS))
                    .hasMessageContaining("had seen token " + Stripes.nth("b", 1));
            assertThatThrownBy(() -> two.leases().acquire("c", Duration.ofMinutes(1)))
                    .isInstanceOfSatisfying(
                            StorageException.class,
                            x -> assertThat(x.problem()).isEqualTo(StorageException.Problem.WENT_BACKWARDS));
            assertThat(asOwner.text("SELECT kind || ' ' || seen_token || ' ' || from_token FROM ledger_history"))
                    .isEqualTo("backwards " + Stripes.nth("b", 1) + " " + Stripes.nth("a", 1));
            assertThatThrownBy(() -> one.leases().acquire("c", Duration.ofMinutes(1)))
                    .isInstanceOfSatisfying(
                            StorageException.class,
                            x -> assertThat(x.problem()).isEqualTo(StorageException.Problem.WENT_BACKWARDS));
            assertThat(asOwner.scalar("SELECT last_token FROM token_counter WHERE id = " + Stripes.of("b")))
                    .isEqualTo(Stripes.of("b")); // b's token never again
            assertThat(one.summary().history().alarm()).contains(two.processIdentity());

            one.bumpFence(-1);
            assertThat(one.leases().acquire("c", Duration.ofMinutes(1)).token())
                    .isEqualTo(FencingTokens.startOf(1) + Stripes.nth("c", 1));
            two.actors().list(); // reads were never refused
            assertThat(two.leases().acquire("b", Duration.ofMinutes(1)).token())
                    .isEqualTo(FencingTokens.startOf(1) + Stripes.nth("b", 1));
            assertThat(asOwner.scalar("SELECT count(*) FROM fence_events WHERE kind = 'LEDGER_WENT_BACKWARDS'"))
                    .isEqualTo(1);
            assertThat(asOwner.scalar("SELECT count(*) FROM fence_events WHERE kind = 'FENCE_BUMPED'"))
                    .isEqualTo(1);
        }
    }
}
