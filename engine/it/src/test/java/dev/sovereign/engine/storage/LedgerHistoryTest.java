package dev.sovereign.engine.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.admin.EpochStart;
import dev.sovereign.engine.admin.LedgerHistory;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.FencingTokens;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.mailbox.Claim;
import dev.sovereign.engine.provider.Outcome;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.Attempt;
import dev.sovereign.engine.spi.tools.LedgerBackups;
import dev.sovereign.engine.spi.tools.LedgerCopyRefusal;
import dev.sovereign.engine.testing.Port;
import dev.sovereign.engine.testing.RawSql;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The file's history only moves forward (issue 26, "the file's history"; decisions 0604, 0605): the issue's case —
 * token 1, a backup, token 2 to proc_two, the backup put back — never issues token 2 again, whether the backup is
 * put back by {@code sovereign restore} (a new epoch) or by hand (proc_two's engine detects it, the ledger halts
 * until a fence bump).
 */
class LedgerHistoryTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final SettableClock clock = new SettableClock();
    private static final Duration TTL = Duration.ofMinutes(10);

    private Engine open() {
        return temp.open(clock);
    }

    private Path backupFile(String name) {
        return temp.dir().resolve(name);
    }

    /** Token 1 to proc_one (actor a), a backup, token 2 to proc_two (actor b); every engine closed. */
    private Path tokenOneBackupTokenTwo(Path backup) {
        Engine one = open();
        one.actors().add("a");
        one.actors().add("b");
        assertThat(one.leases().acquire("a", TTL).token()).isEqualTo(1);
        LedgerBackups.backup(temp.location(), backup, clock);
        Engine two = open();
        assertThat(two.leases().acquire("b", TTL).token()).isEqualTo(2);
        two.close();
        one.close();
        return backup;
    }

    @Test
    void aRestoredBackupNeverIssuesAGrantedTokenAgain() throws Exception {
        Path backup = tokenOneBackupTokenTwo(backupFile("b.db"));

        LedgerBackups.Restore r = LedgerBackups.restore(backup, temp.location(), -1, clock);
        assertThat(r.replacedEpoch()).isZero();
        assertThat(r.takenToken()).isEqualTo(1);
        assertThat(r.start().epoch()).isEqualTo(1);
        assertThat(r.start().voidedLeases()).isEqualTo(1); // proc_one's lease on a, live in the backup

        try (Engine e = open()) {
            Lease next = e.leases().acquire("b", TTL);
            assertThat(next.token()).isEqualTo(FencingTokens.firstTokenOf(1)).isNotEqualTo(2);
            // proc_one's lease on a was voided: a can be taken at once, with a token of the new epoch
            assertThat(e.leases().acquire("a", TTL).token()).isEqualTo(FencingTokens.firstTokenOf(1) + 1);
            LedgerHistory h = e.summary().history();
            assertThat(h.epoch()).isEqualTo(1);
            assertThat(h.lastEpochStart().kind()).isEqualTo("restore");
            assertThat(h.lastEpochStart().backupId()).startsWith("backup_");
            assertThat(h.alarm()).isNull();
            assertThat(e.journal().since(0, 1000).stream().map(ev -> ev.kind().name()))
                    .contains("LEDGER_RESTORED");
        }
        assertThat(Files.readString(r.restores())).contains("restored epoch 1 into " + temp.file());
    }

    @Test
    void aCopyNotMadeByBackupIsRestoredTheSameWay() throws Exception {
        Engine one = open();
        one.actors().add("a");
        one.actors().add("b");
        one.leases().acquire("a", TTL);
        Path copy = backupFile("raw.db");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + temp.file());
                Statement s = c.createStatement()) {
            s.executeUpdate("backup to " + copy); // sqlite3 r.db ".backup b.db", as in the issue
        }
        one.leases().acquire("b", TTL);
        one.close();
        LedgerBackups.Restore r = LedgerBackups.restore(copy, temp.location(), -1, clock);
        assertThat(r.takenAt()).isEqualTo(-1);
        assertThat(r.takenToken()).isEqualTo(1);
        assertThat(r.start().epoch()).isEqualTo(1);
        try (Engine e = open()) {
            assertThat(e.leases().acquire("b", TTL).token()).isEqualTo(FencingTokens.firstTokenOf(1));
        }
    }

    @Test
    void restoringTheSameBackupAgainGoesAboveEveryEarlierRestoreEvenWhenTheLedgerWasLost() throws Exception {
        Path backup = tokenOneBackupTokenTwo(backupFile("b.db"));
        assertThat(LedgerBackups.restore(backup, temp.location(), -1, clock)
                        .start()
                        .epoch())
                .isEqualTo(1);
        try (Engine e = open()) {
            assertThat(e.leases().acquire("b", TTL).token()).isEqualTo(FencingTokens.firstTokenOf(1));
        }
        // the restored ledger is lost; the same backup is restored again: the record beside it says epoch 1 was used
        Files.delete(temp.file());
        Files.deleteIfExists(Path.of(temp.file() + "-wal"));
        Files.deleteIfExists(Path.of(temp.file() + "-shm"));
        LedgerBackups.Restore again = LedgerBackups.restore(backup, temp.location(), -1, clock);
        assertThat(again.replacedEpoch()).isEqualTo(-1);
        assertThat(again.start().epoch()).isEqualTo(2);
        try (Engine e = open()) {
            assertThat(e.leases().acquire("b", TTL).token()).isEqualTo(FencingTokens.firstTokenOf(2));
        }
        // and over a ledger in a later epoch than the record knows (it was bumped since), above that one; proc_one,
        // live when the backup was taken, is live in each restored copy until its beats are overdue
        clock.advance(Duration.ofMinutes(1));
        try (Engine e = open()) {
            e.bumpFence(-1);
            e.bumpFence(-1); // epoch 4
        }
        assertThat(LedgerBackups.restore(backup, temp.location(), -1, clock)
                        .start()
                        .epoch())
                .isEqualTo(5);
        assertThat(LedgerBackups.restore(backup, temp.location(), 9, clock)
                        .start()
                        .epoch())
                .isEqualTo(10);
    }

    @Test
    void aBackupIsNotALedgerUntilRestored() throws Exception {
        Engine e = open();
        e.actors().add("a");
        e.leases().acquire("a", TTL);
        Path backup = backupFile("b.db");
        LedgerBackups.Backup b = LedgerBackups.backup(temp.location(), backup, clock); // while e is open
        assertThat(b.token()).isEqualTo(1);
        assertThat(b.epoch()).isZero();
        assertThat(new RawSql(backup).text("SELECT kind || ' ' || from_token || ' ' || backup_id FROM ledger_history"))
                .isEqualTo("backup 1 " + b.backupId());
        assertThat(new RawSql(temp.file()).scalar("SELECT count(*) FROM ledger_history"))
                .isZero(); // live file untouched

        // copied back by hand (cp), it is refused by every open
        assertThatThrownBy(() -> Engine.openExisting(EngineConfig.forDatabase(backup)
                        .clock(clock)
                        .heartbeat(false)
                        .build()))
                .isInstanceOf(StorageException.class)
                .satisfies(
                        x -> assertThat(((StorageException) x).problem()).isEqualTo(StorageException.Problem.A_BACKUP))
                .hasMessageContaining("sovereign restore");
        assertThatThrownBy(() -> LedgerBackups.backup(temp.location(), backup, clock))
                .isInstanceOf(LedgerCopyRefusal.class)
                .hasMessageContaining("never over one");
    }

    @Test
    void aRestoreOverALedgerWithLiveProcessesIsRefusedAndChangesNothing() throws Exception {
        Engine e = open();
        e.actors().add("a");
        e.leases().acquire("a", TTL);
        Path backup = backupFile("b.db");
        LedgerBackups.backup(temp.location(), backup, clock);
        assertThatThrownBy(() -> LedgerBackups.restore(backup, temp.location(), -1, clock))
                .isInstanceOf(LedgerCopyRefusal.class)
                .satisfies(x -> assertThat(((LedgerCopyRefusal) x).category()).isEqualTo("target_live"))
                .hasMessageContaining(e.processIdentity());
        assertThat(Files.exists(backup.resolveSibling("b.db.restores"))).isFalse();
        assertThat(e.leases().list()).hasSize(1);
        assertThat(new RawSql(temp.file()).scalar("SELECT last_token FROM token_counter"))
                .isEqualTo(1);
    }

    @Test
    void aRestoreNeverOverwritesAFileItCannotRead() throws Exception {
        try (Engine e = open()) {
            e.actors().add("a");
        }
        Path backup = backupFile("b.db");
        LedgerBackups.backup(temp.location(), backup, clock);
        Path empty = temp.dir().resolve("truncated.db");
        Files.createFile(empty);
        assertThatThrownBy(() -> LedgerBackups.restore(backup, LedgerLocation.file(empty), -1, clock))
                .isInstanceOf(LedgerCopyRefusal.class)
                .satisfies(x -> assertThat(((LedgerCopyRefusal) x).category()).isEqualTo("target_unreadable"))
                .hasMessageContaining("--above-epoch");
        assertThat(Files.size(empty)).isZero();
    }

    @Test
    void aPreRestoreTokenIsRefusedEvenWhereTheBackupStillNamesIt() throws Exception {
        Engine one = open();
        String proc = one.processIdentity();
        one.actors().add("a");
        Lease held = one.leases().acquire("a", TTL);
        String message = one.mailbox().send("x", "a", "s", "b").id();
        Claim claim = one.mailbox().claim(message, "a");
        Assignment job = one.runs().assign("a", "scripted", "temporary");
        Attempt attempt = Port.runs(one).startAttempt(job.id(), held.token(), TTL.toMillis());
        Path backup = backupFile("b.db");
        LedgerBackups.backup(temp.location(), backup, clock);
        one.close();
        LedgerBackups.restore(backup, temp.location(), -1, clock);

        // the holder comes back under its identity: its old lease token is gone with the row
        try (Engine back = temp.open(temp.config(clock).actAs(proc).build())) {
            assertThatThrownBy(() -> back.leases().renew("a", held.token(), TTL))
                    .isInstanceOfSatisfying(
                            Refusal.class, r -> assertThat(r.category()).isEqualTo(RefusalCategory.ACTOR_LEASE_LOST));
            // it hosts the actor again, in the new epoch: the attempt bound to the old lease token cannot end ...
            back.leases().acquire("a", TTL);
            assertThatThrownBy(() -> Port.runs(back).finish(attempt, Outcome.COMPLETED, null, true, "late"))
                    .isInstanceOfSatisfying(
                            Refusal.class, r -> assertThat(r.category()).isEqualTo(RefusalCategory.ACTOR_LEASE_LOST));
            // ... and the claim of the old epoch can neither finish nor be renewed
            assertThatThrownBy(() -> back.mailbox().complete(message, claim.token()))
                    .isInstanceOfSatisfying(
                            Refusal.class, r -> assertThat(r.category()).isEqualTo(RefusalCategory.FENCING_TOKEN_STALE))
                    .hasMessageContaining("current epoch");
            assertThatThrownBy(() -> back.mailbox().claim(message, "a"))
                    .isInstanceOfSatisfying(
                            Refusal.class,
                            r -> assertThat(r.category()).isEqualTo(RefusalCategory.FENCING_TOKEN_STALE));
            // once it expires, it is claimed again with a token of this epoch
            clock.advance(TTL.plusMinutes(1));
            back.supervisor().tick();
            back.leases().acquireOrRenew("a", TTL);
            assertThat(FencingTokens.epochOf(back.mailbox().claim(message, "a").token()))
                    .isEqualTo(1);
        }
        // and the database itself refuses the old claim's finish, whatever the WHERE says (a raw writer)
        assertThat(new RawSql(temp.file()).scalar("SELECT count(*) FROM fence_events WHERE kind = 'REJECTED'"))
                .isGreaterThanOrEqualTo(2);
    }

    @Test
    void aHolderThatOnlyBeatsDetectsTheLedgerPutBackBeforeAnyoneIsGrantedItsTokenAgain() throws Exception {
        Engine one = open();
        one.actors().add("a");
        one.actors().add("b");
        one.leases().acquire("a", TTL);
        Path copy = backupFile("raw.db");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + temp.file());
                Statement s = c.createStatement()) {
            s.executeUpdate("backup to " + copy);
        }
        Engine two = open();
        assertThat(two.leases().acquire("b", TTL).token()).isEqualTo(2);
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + temp.file());
                Statement s = c.createStatement()) {
            s.executeUpdate("restore from " + copy);
        }
        assertThatThrownBy(two::heartbeatNow)
                .isInstanceOfSatisfying(
                        StorageException.class,
                        x -> assertThat(x.problem()).isEqualTo(StorageException.Problem.WENT_BACKWARDS));
        assertThatThrownBy(() -> one.leases().acquire("b", TTL))
                .isInstanceOf(StorageException.class)
                .hasMessageContaining("went backwards");
        assertThat(new RawSql(temp.file()).scalar("SELECT last_token FROM token_counter"))
                .isEqualTo(1);
    }

    @Test
    void aLedgerPutBackByHandIsDetectedByTheEngineThatSawMoreAndHaltsUntilABump() throws Exception {
        Engine one = open();
        one.actors().add("a");
        one.actors().add("b");
        one.actors().add("c");
        assertThat(one.leases().acquire("a", TTL).token()).isEqualTo(1);
        Path copy = backupFile("raw.db");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + temp.file());
                Statement s = c.createStatement()) {
            s.executeUpdate("backup to " + copy); // sqlite3 r.db ".backup b.db"
        }
        Engine two = open();
        assertThat(two.leases().acquire("b", TTL).token()).isEqualTo(2);
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + temp.file());
                Statement s = c.createStatement()) {
            s.executeUpdate("restore from " + copy); // the copy put back without the tool
        }

        // proc_two's next grant would be token 2 again: its engine refuses, says why, and records it
        assertThatThrownBy(() -> two.leases().acquire("c", TTL))
                .isInstanceOfSatisfying(
                        StorageException.class,
                        x -> assertThat(x.problem()).isEqualTo(StorageException.Problem.WENT_BACKWARDS))
                .hasMessageContaining("went backwards")
                .hasMessageContaining("sovereign fence bump");
        RawSql raw = new RawSql(temp.file());
        assertThat(raw.text("SELECT kind || ' ' || seen_token || ' ' || from_token FROM ledger_history"))
                .isEqualTo("backwards 2 1");
        assertThat(raw.scalar("SELECT count(*) FROM fence_events WHERE kind = 'LEDGER_WENT_BACKWARDS'"))
                .isEqualTo(1);
        // every other engine is halted too, by the database: nobody gets token 2 again
        Engine three = open();
        assertThatThrownBy(() -> three.leases().acquire("c", TTL))
                .isInstanceOfSatisfying(
                        StorageException.class,
                        x -> assertThat(x.problem()).isEqualTo(StorageException.Problem.WENT_BACKWARDS));
        assertThat(raw.scalar("SELECT last_token FROM token_counter")).isEqualTo(1);
        // proc_two refuses even writes that mint nothing, and the status says what happened
        assertThatThrownBy(() -> two.actors().add("d")).isInstanceOf(StorageException.class);
        assertThat(three.summary().history().alarm()).contains("went backwards").contains(two.processIdentity());

        EpochStart bump = three.bumpFence(-1);
        assertThat(bump.epoch()).isEqualTo(1);
        assertThat(three.leases().acquire("c", TTL).token()).isEqualTo(FencingTokens.firstTokenOf(1));
        two.actors().add("d"); // its engine writes again (its own process row went with the copy put back)
        assertThat(three.summary().history().alarm()).isNull();
        List<String> kinds = raw.rows("SELECT kind FROM ledger_history ORDER BY seq");
        assertThat(kinds).containsExactly("backwards|", "bump|");
    }
}
