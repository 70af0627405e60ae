package dev.sovereign.engine.internal.sqlite;

import dev.sovereign.engine.SovereignVersion;
import dev.sovereign.engine.admin.EpochStart;
import dev.sovereign.engine.admin.LedgerHistory;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.FencingTokens;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.base.OwnerOnly;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.base.StorageException.Problem;
import dev.sovereign.engine.internal.jdbc.JdbcLedgerHistory;
import dev.sovereign.engine.internal.jdbc.JdbcProcesses;
import dev.sovereign.engine.spi.tools.LedgerBackups;
import dev.sovereign.engine.spi.tools.LedgerCopyRefusal;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.sqlite.SQLiteConnection;

/**
 * {@code sovereign backup} and {@code sovereign restore} on a ledger file (decision 0604). Neither ever opens the
 * live ledger file with plain file I/O (contract §3): a backup reads it through SQLite ({@code VACUUM INTO}, one read
 * transaction, while workers write), and a restore writes it through SQLite's backup API (page by page under its
 * locks) or, when no file is there, links a finished file into place. Stateless.
 */
final class SqliteBackups {
    /** The file beside a backup that records every restore made from it. */
    static final String RESTORES_SUFFIX = ".restores";

    private static final Pattern RESTORED_EPOCH = Pattern.compile("\\bepoch (\\d+)\\b");

    private SqliteBackups() {}

    // ---- backup -----------------------------------------------------------------------------------------------

    static LedgerBackups.Backup backup(Path ledger, Path copy, Clock clock) {
        if (Files.exists(copy)) {
            throw new LedgerCopyRefusal(
                    "backup_exists",
                    "The file " + copy + " exists; a backup is written only to a" + " new file, never over one.");
        }
        Path parent = copy.getParent();
        if (parent != null && !Files.isDirectory(parent)) {
            throw new StorageException(
                    Problem.MISSING_DIRECTORY,
                    copy,
                    "Cannot write the backup " + copy + ": the" + " directory " + parent + " does not exist.",
                    null);
        }
        try (ReadConnection live = ReadConnection.open(ledger)) { // ours, this schema version, or refused
            String problem = live.read("read", () -> SqliteLedgerHistory.counterProblem(live, ledger.toString()));
            if (problem != null) {
                throw new StorageException(Problem.CORRUPT, ledger, problem, null);
            }
        }
        try {
            OwnerOnly.createFile(copy);
        } catch (FileAlreadyExistsException raced) {
            throw new LedgerCopyRefusal(
                    "backup_exists",
                    "The file " + copy + " exists; a backup is written only to a" + " new file, never over one.");
        } catch (IOException e) {
            throw new StorageException(
                    Problem.IO, copy, "Cannot create the backup " + copy + ": " + e.getMessage() + ".", e);
        }
        boolean done = false;
        try {
            try (Connection c = Database.connect(ledger, Database.DEFAULT_SQLITE_BUSY_TIMEOUT_MS);
                    PreparedStatement vacuum = c.prepareStatement("VACUUM INTO ?")) {
                // one read transaction of the live file: consistent, and no writer waits for it (WAL)
                vacuum.setString(1, copy.toString());
                vacuum.execute();
            } catch (SQLException e) {
                throw Database.translate(ledger, e, "back up");
            }
            LedgerBackups.Backup b = markAsBackup(ledger, copy, clock);
            done = true;
            markBackedUp(ledger, b);
            return b;
        } finally {
            if (!done) {
                Database.deleteQuietly(copy);
            }
        }
    }

    /**
     * Records in the live ledger when it was last backed up and by which backup (decision 0020), for the metrics and
     * the console. Best effort, after the backup is complete: a ledger that takes no writes (retired by {@code
     * sovereign copy}) keeps its old mark, and the backup stands either way.
     */
    private static void markBackedUp(Path ledger, LedgerBackups.Backup b) {
        try (Connection c = Database.connect(ledger, Database.DEFAULT_SQLITE_BUSY_TIMEOUT_MS);
                PreparedStatement ps = c.prepareStatement("UPDATE retention SET last_backup_at = ?, last_backup_id = ?"
                        + " WHERE kind = 'journal' AND (last_backup_at IS NULL OR last_backup_at <= ?)")) {
            ps.setLong(1, b.at());
            ps.setString(2, b.backupId());
            ps.setLong(3, b.at());
            ps.executeUpdate();
        } catch (SQLException e) {
            System.getLogger(SqliteBackups.class.getName())
                    .log(
                            System.Logger.Level.WARNING,
                            "the backup " + b.backupId() + " is complete, but " + ledger
                                    + " could not record it as its last backup: " + e.getMessage());
        }
    }

    /** Records in the copy, in its own transaction, that it is a backup: when, of what, at which token. */
    private static LedgerBackups.Backup markAsBackup(Path ledger, Path copy, Clock clock) {
        String id = "backup_" + UUID.randomUUID();
        long at = clock.millis();
        try (Connection c = Database.connect(copy, Database.DEFAULT_SQLITE_BUSY_TIMEOUT_MS);
                Statement s = c.createStatement()) {
            s.execute("BEGIN IMMEDIATE");
            long token;
            long lastSeq;
            try (ResultSet rs = s.executeQuery("SELECT last_token FROM token_counter WHERE id = 1")) {
                rs.next();
                token = rs.getLong(1);
            }
            try (ResultSet rs = s.executeQuery("SELECT coalesce(max(seq), 0) FROM fence_events")) {
                rs.next();
                lastSeq = rs.getLong(1);
            }
            long epoch = FencingTokens.epochOf(token);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO ledger_history (at, kind, epoch, from_token,"
                    + " to_token, seen_token, process_identity, backup_id, detail) VALUES (?, 'backup', ?, ?, ?, NULL,"
                    + " NULL, ?, ?)")) {
                ps.setLong(1, at);
                ps.setLong(2, epoch);
                ps.setLong(3, token);
                ps.setLong(4, token);
                ps.setString(5, id);
                ps.setString(
                        6,
                        "a backup of " + ledger + " taken at " + Instant.ofEpochMilli(at) + " by sovereign "
                                + SovereignVersion.current().version() + ", at token " + FencingTokens.describe(token)
                                + ", journal seq " + lastSeq);
                ps.executeUpdate();
            }
            s.execute("COMMIT");
            return new LedgerBackups.Backup(LedgerLocation.file(ledger), copy, id, epoch, token, lastSeq, at);
        } catch (SQLException e) {
            throw Database.translate(copy, e, "write the backup");
        }
    }

    // ---- restore ----------------------------------------------------------------------------------------------

    static LedgerBackups.Restore restore(Path backup, Path target, long aboveEpoch, Clock clock) {
        if (!Files.exists(backup)) {
            throw new StorageException(Problem.MISSING_FILE, backup, "There is no backup at " + backup + ".", null);
        }
        try {
            if (Files.exists(target) && Files.isSameFile(backup, target)) {
                throw new LedgerCopyRefusal(
                        "same_file",
                        "The backup " + backup + " is the ledger file itself; restore it"
                                + " to the ledger's path from a backup file.");
            }
        } catch (IOException e) {
            throw new StorageException(
                    Problem.IO,
                    target,
                    "Cannot compare " + backup + " with " + target + ": " + e.getMessage() + ".",
                    e);
        }
        Path parent = target.getParent();
        if (parent != null && !Files.isDirectory(parent)) {
            throw new StorageException(
                    Problem.MISSING_DIRECTORY,
                    target,
                    "Cannot restore to " + target + ": the" + " directory " + parent + " does not exist.",
                    null);
        }
        long replaced = Files.exists(target) ? replacedEpoch(target, clock) : -1;
        Path restores = backup.resolveSibling(backup.getFileName() + RESTORES_SUFFIX);
        long restoredBefore = epochsRestoredFrom(restores);

        Path building = target.resolveSibling("." + target.getFileName() + ".restoring-" + UUID.randomUUID());
        try {
            copyInto(backup, building);
            Restored r = startEpochIn(
                    building,
                    backup,
                    target,
                    Math.max(Math.max(aboveEpoch, replaced), restoredBefore),
                    replaced,
                    clock);
            // The record beside the backup is written BEFORE the ledger is put in place: if what follows fails, a
            // later restore from this backup still goes above this epoch (never the other way round).
            try {
                OwnerOnly.appendDurably(
                        restores,
                        "restored epoch " + r.start().epoch() + " into " + target + " at "
                                + Instant.ofEpochMilli(r.start().at())
                                + (r.backupId() == null ? "" : " (" + r.backupId() + ")"));
            } catch (IOException e) {
                throw new StorageException(
                        Problem.IO,
                        restores,
                        "Cannot record the restore in " + restores + " ("
                                + e.getMessage()
                                + "), so nothing was restored: that record is what keeps a second restore of"
                                + " this backup from issuing this one's tokens again.",
                        e);
            }
            putInPlace(building, target, clock);
            return new LedgerBackups.Restore(
                    backup, LedgerLocation.file(target), r.takenToken(), r.takenAt(), replaced, r.start(), restores);
        } finally {
            Database.deleteQuietly(building);
        }
    }

    /**
     * The epoch of the ledger a restore would replace: the highest it has been in or heard of. Refuses a file that is
     * not a ledger this code can read (its epoch would be unknown) and a ledger with live processes.
     */
    private static long replacedEpoch(Path target, Clock clock) {
        try (ReadConnection c = ReadConnection.open(target)) {
            return c.read("read", () -> {
                long now = clock.millis();
                List<String> live = c.query(
                        "SELECT identity || CASE WHEN host IS NULL THEN '' ELSE ' on ' || host END"
                                + " FROM processes WHERE stopped_at IS NULL AND ? - heartbeat_at <= heartbeat_interval_ms * ?"
                                + " ORDER BY heartbeat_at DESC LIMIT 4",
                        rs -> rs.getString(1),
                        now,
                        (long) EngineConfig.STALE_AFTER_MISSED_BEATS);
                if (!live.isEmpty()) {
                    throw new LedgerCopyRefusal(
                            "target_live",
                            "The ledger " + target + " has live processes ("
                                    + String.join(", ", live.subList(0, Math.min(3, live.size())))
                                    + (live.size() > 3 ? ", ..." : "")
                                    + "), which would keep writing to what a restore replaces; stop them (mark crashed ones"
                                    + " stopped with 'sovereign process stop'), then restore; nothing was changed.");
                }
                return SqliteLedgerHistory.highestEpoch(c);
            });
        } catch (StorageException e) {
            if (e.problem() == Problem.BUSY) {
                throw e;
            }
            throw new LedgerCopyRefusal(
                    "target_unreadable",
                    "The file " + target + " exists but is not a ledger this"
                            + " restore can read (" + e.getMessage().replaceAll("[.]$", "")
                            + "), so the epoch its tokens reached is"
                            + " unknown; move it aside (a restore never overwrites what it cannot read), then restore to this"
                            + " path, with --above-epoch N if you know the epoch it had reached; nothing was changed.");
        }
    }

    /** The highest epoch an earlier restore from this backup started, as the file beside it records; -1 for none. */
    static long epochsRestoredFrom(Path restores) {
        if (!Files.exists(restores)) {
            return -1;
        }
        try {
            long highest = -1;
            for (String line : Files.readAllLines(restores)) {
                Matcher m = RESTORED_EPOCH.matcher(line);
                if (m.find()) {
                    highest = Math.max(highest, Long.parseLong(m.group(1)));
                }
            }
            return highest;
        } catch (IOException | NumberFormatException e) {
            throw new StorageException(
                    Problem.IO,
                    restores,
                    "Cannot read " + restores + ", the record of the restores" + " made from this backup ("
                            + e.getMessage() + "); nothing was restored.",
                    e);
        }
    }

    /** A consistent copy of the backup in the new file {@code building} ({@code VACUUM INTO}), {@code 0600}. */
    private static void copyInto(Path backup, Path building) {
        try {
            OwnerOnly.createFile(building);
        } catch (IOException e) {
            throw new StorageException(
                    Problem.IO, building, "Cannot create " + building + ": " + e.getMessage() + ".", e);
        }
        try (Connection c = Database.connect(backup, Database.DEFAULT_SQLITE_BUSY_TIMEOUT_MS);
                PreparedStatement vacuum = c.prepareStatement("VACUUM INTO ?")) {
            vacuum.setString(1, building.toString());
            vacuum.execute();
        } catch (SQLException e) {
            throw Database.translate(backup, e, "read the backup");
        }
    }

    private record Restored(EpochStart start, String backupId, long takenToken, long takenAt) {}

    /**
     * Opens the copy as the restore may (migrating a backup of an older version, accepting its backup mark), then, in
     * one write transaction under an identity of its own: the new epoch, every lease of the backup voided, the journal
     * told ({@code LEDGER_RESTORED}).
     */
    private static Restored startEpochIn(
            Path building, Path backup, Path target, long above, long replaced, Clock clock) {
        EngineConfig config =
                EngineConfig.forDatabase(building).clock(clock).heartbeat(false).build();
        Database db;
        try {
            db = Database.open(config, false, true);
        } catch (StorageException e) {
            // its sentence names the copy: name the backup the operator gave
            throw new StorageException(
                    e.problem(),
                    backup,
                    String.valueOf(e.getMessage()).replace(building.toString(), backup.toString()),
                    e);
        }
        try {
            String identity = JdbcProcesses.newIdentity();
            db.setProcessIdentity(identity);
            return db.write(tx -> {
                LedgerHistory.Entry taken = JdbcLedgerHistory.last(tx);
                boolean ours = taken != null && "backup".equals(taken.kind());
                long takenToken = ours ? taken.fromToken() : tx.lastToken();
                tx.update(
                        "INSERT INTO processes (identity, pid, host, kind, label, started_at, heartbeat_at,"
                                + " heartbeat_interval_ms, stopped_at) VALUES (?, ?, ?, 'cli', 'sovereign restore', ?, ?, ?, ?)",
                        identity,
                        ProcessHandle.current().pid(),
                        JdbcProcesses.hostName(),
                        tx.now(),
                        tx.now(),
                        1000L,
                        tx.now());
                String detail = "sovereign restore of " + backup
                        + (ours
                                ? " (" + taken.detail() + ")"
                                : " (a copy not made by 'sovereign backup', at token "
                                        + FencingTokens.describe(takenToken) + ")")
                        + (replaced < 0
                                ? " to the new file " + target
                                : " over " + target + " (it had reached epoch " + replaced + ")");
                EpochStart start =
                        SqliteLedgerHistory.startEpoch(tx, "restore", above, ours ? taken.backupId() : null, detail);
                return new Restored(start, ours ? taken.backupId() : null, takenToken, ours ? taken.at() : -1);
            });
        } finally {
            db.close(); // the last connection: checkpoints the whole of it into the file
        }
    }

    /**
     * Puts the finished file in place. Over a ledger: through SQLite's backup API on a connection to it, page by page
     * under SQLite's locks (WAL-aware; any other connection sees the old ledger or the new one, never a mix). Where
     * no file is: linked into place, so the name never shows a half-written file.
     */
    private static void putInPlace(Path building, Path target, Clock clock) {
        if (!Files.exists(target)) {
            try {
                Files.createLink(target, building);
                return;
            } catch (FileAlreadyExistsException raced) {
                // someone put a file there meanwhile: replace it through SQLite as below, after the same checks
                replacedEpoch(target, clock);
            } catch (UnsupportedOperationException | IOException noLinks) {
                try {
                    Files.move(building, target);
                    return;
                } catch (IOException e) {
                    throw new StorageException(
                            Problem.IO,
                            target,
                            "Cannot put the restored ledger at " + target + ": " + e.getMessage() + ".",
                            e);
                }
            }
        }
        try (Connection c = Database.connect(target, Database.DEFAULT_SQLITE_BUSY_TIMEOUT_MS)) {
            int rc = ((SQLiteConnection) c).getDatabase().restore("main", building.toString(), null, 100, 50, -1);
            if (rc != 0) {
                throw new StorageException(
                        Problem.BUSY,
                        target,
                        "Could not replace " + target + " with the restored" + " ledger (SQLite result " + rc
                                + "): another process held it; nothing was changed.",
                        null);
            }
        } catch (SQLException e) {
            throw Database.translate(target, e, "restore into");
        }
    }

    /** For tests: the epochs recorded beside {@code backup}. */
    static List<Long> restoredEpochs(Path backup) throws IOException {
        List<Long> out = new ArrayList<>();
        Path restores = backup.resolveSibling(backup.getFileName() + RESTORES_SUFFIX);
        for (String line : Files.readAllLines(restores)) {
            Matcher m = RESTORED_EPOCH.matcher(line);
            if (m.find()) {
                out.add(Long.parseLong(m.group(1)));
            }
        }
        return out;
    }
}
