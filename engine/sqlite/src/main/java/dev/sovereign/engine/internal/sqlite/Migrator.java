package dev.sovereign.engine.internal.sqlite;

import dev.sovereign.engine.SovereignVersion;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.base.StorageException.Problem;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Forward-only schema migrations from SQL resources. Each runs in one {@code BEGIN IMMEDIATE}
 * together with its {@code user_version} stamp, and re-reads the version inside that transaction,
 * so two processes opening a fresh file at once apply each migration exactly once.
 *
 * <p>Files are checked before anything is written: a file whose {@code application_id} is someone
 * else's (or that has tables but no id) is refused, as is a schema newer than this code. Applied
 * migrations are never edited; a change is a new file appended to {@link #MIGRATIONS}.
 */
final class Migrator {
    static final List<String> MIGRATIONS = List.of(
            "V0001__initial.sql",
            "V0002__lease_changes.sql",
            "V0003__database_enforced_fence.sql",
            "V0004__migration_record.sql",
            "V0005__attempts_end_through_their_fence.sql",
            "V0006__fewer_pages_per_write.sql",
            "V0007__leases_attached_to_their_holder.sql",
            "V0008__every_input_of_the_fence_guarded.sql",
            "V0009__the_ledgers_history.sql",
            "V0010__a_copied_ledger_is_retired.sql",
            "V0011__the_change_counter_steps_and_a_live_process_stays.sql",
            "V0012__lease_times_and_stop_times_typed.sql",
            "V0013__attempt_times_typed.sql",
            "V0014__the_journal_history_and_ticks_take_the_next_seq.sql",
            "V0015__the_journal_is_pruned_below_a_watermark.sql",
            "V0016__finished_work_is_pruned_when_old.sql",
            "V0017__one_mint_carries_one_write.sql",
            "V0018__a_claims_record_and_a_tombstones_marker_are_kept.sql");

    /** The version whose transaction also writes the ledger's one {@code ledger_mark} row. */
    private static final int LEDGER_MARK_VERSION = 3;
    /** The first version whose transaction records which Sovereign applied it ({@code schema_migrations}). */
    static final int MIGRATION_RECORD_VERSION = 4;

    private static final Pattern TRIGGER_NAME = Pattern.compile("(?i)CREATE\\s+TRIGGER\\s+(\\w+)");
    private static final Pattern TRIGGER_TABLE = Pattern.compile(
            "(?i)\\b(?:BEFORE|AFTER|INSTEAD\\s+OF)\\s+(?:INSERT|UPDATE|DELETE)(?:\\s+OF\\s+[\\w, ]+?)?\\s+ON\\s+(\\w+)");
    /** The first version whose journal has no AUTOINCREMENT (decision 0507). */
    private static final int JOURNAL_WITHOUT_AUTOINCREMENT_VERSION = 6;
    /** A key sequence beyond this was wound forward by hand: the journal could not take another row. */
    private static final long SEQUENCE_LIMIT = 1L << 62;

    /** The schema version this code writes and understands. */
    static final int LATEST = MIGRATIONS.size();

    private final Database db;
    /** Whether this migrator applied version 1, i.e. created the ledger: only then may it be a sandbox. */
    private boolean createdHere;

    Migrator(Database db) {
        this.db = db;
    }

    /**
     * Checks, sets the pragmas and applies what is missing. Busy (another process is opening or
     * migrating the same file) is retried, like every write, until the busy bound; each step is
     * idempotent, so a retry starts over safely.
     */
    void migrate() {
        Connection c = db.connection();
        long deadline = System.nanoTime() + db.busyBoundMillis() * 1_000_000L;
        while (true) {
            try {
                checkOwnership(c);
                db.applyPragmas();
                for (int version = 1; version <= LATEST; version++) {
                    apply(c, version);
                }
                requireGuards(c);
                return;
            } catch (SQLException e) {
                if (Database.isBusy(e) && System.nanoTime() < deadline) {
                    Database.pauseBriefly();
                    continue;
                }
                throw Database.translate(db.file(), e, "open");
            }
        }
    }

    private void checkOwnership(Connection c) throws SQLException {
        // One read transaction, so the three reads see one snapshot: another process may be
        // migrating the same fresh file right now.
        int appId;
        int version;
        int objects;
        try (Statement s = c.createStatement()) {
            s.execute("BEGIN");
            try {
                appId = pragma(c, "application_id");
                version = pragma(c, "user_version");
                objects = count(c, "SELECT count(*) FROM sqlite_master");
            } finally {
                s.execute("ROLLBACK");
            }
        }
        if (appId == 0 && objects > 0) {
            throw new StorageException(
                    Problem.NOT_OURS,
                    db.file(),
                    "The file " + db.file()
                            + " is an SQLite database that Sovereign did not create; refusing to touch it.",
                    null);
        }
        if (appId == 0 && !db.creating()) {
            // only a new ledger is built from nothing, in a file of its own (Database.createLedger)
            throw new StorageException(
                    Problem.NOT_OURS,
                    db.file(),
                    "The file " + db.file() + " is an SQLite database"
                            + " with no Sovereign ledger in it; refusing to turn it into one (only 'sovereign init' on a path"
                            + " where no file exists creates a ledger).",
                    null);
        }
        if (appId != 0 && appId != Database.APPLICATION_ID) {
            throw new StorageException(
                    Problem.NOT_OURS,
                    db.file(),
                    "The file " + db.file() + " belongs to another application (application_id " + appId
                            + "); refusing to touch it.",
                    null);
        }
        if (version > LATEST) {
            throw new StorageException(
                    Problem.SCHEMA_TOO_NEW,
                    db.file(),
                    "The database " + db.file()
                            + " has schema version " + version + ", newer than this Sovereign understands (" + LATEST
                            + "); upgrade Sovereign.",
                    null);
        }
    }

    private void apply(Connection c, int version) throws SQLException {
        if (pragma(c, "user_version") >= version) {
            return;
        }
        try (Statement s = c.createStatement()) {
            s.execute("BEGIN IMMEDIATE");
            try {
                int current = pragma(c, "user_version");
                if (current < version) {
                    int appId = pragma(c, "application_id");
                    if (appId != 0 && appId != Database.APPLICATION_ID) {
                        throw new StorageException(
                                Problem.NOT_OURS,
                                db.file(),
                                "The file " + db.file() + " belongs to another application; refusing to touch it.",
                                null);
                    }
                    for (String statement : statements(load(MIGRATIONS.get(version - 1)))) {
                        s.execute(statement);
                    }
                    if (version == 1) {
                        createdHere = true;
                    }
                    if (version == LEDGER_MARK_VERSION) {
                        writeLedgerMark(c);
                    }
                    if (version >= MIGRATION_RECORD_VERSION) {
                        recordMigration(c, version);
                    }
                    s.execute("PRAGMA application_id = " + Database.APPLICATION_ID);
                    s.execute("PRAGMA user_version = " + version);
                }
                s.execute("COMMIT");
            } catch (SQLException | RuntimeException e) {
                try {
                    s.execute("ROLLBACK");
                } catch (SQLException ignored) {
                    // already rolled back
                }
                throw e;
            }
        }
    }

    /**
     * The ledger's mark, in the same transaction as the migration that creates its table: a lab
     * sandbox only when the open asked for one AND this migrator created the file moments ago (the
     * schema's own trigger refuses the mark on a ledger that holds anything).
     */
    private void writeLedgerMark(Connection c) throws SQLException {
        boolean sandbox = db.labSandboxRequested() && createdHere;
        try (PreparedStatement ps =
                c.prepareStatement("INSERT INTO ledger_mark (id, lab_sandbox, marked_at) VALUES (1, ?, ?)")) {
            ps.setInt(1, sandbox ? 1 : 0);
            ps.setLong(2, db.clock().millis());
            ps.executeUpdate();
        }
    }

    /** Which Sovereign applied {@code version}: in the migration's own transaction, so it commits with it. */
    private void recordMigration(Connection c, int version) throws SQLException {
        SovereignVersion me = SovereignVersion.current();
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO schema_migrations"
                + " (schema_version, sovereign_version, sovereign_commit, migrated_at) VALUES (?, ?, ?, ?)")) {
            ps.setInt(1, version);
            ps.setString(2, me.version());
            ps.setString(3, me.commit());
            ps.setLong(4, db.clock().millis());
            ps.executeUpdate();
        }
    }

    /**
     * Fails closed on a ledger whose guards were changed by hand (contract §14, 16): every trigger and index the
     * migrations created must still be there, on its table, with its text — dropped, replaced by a look-alike, or
     * following a renamed table, the database no longer enforces the fence — no trigger or view the schema did not
     * create may be in the file (one could silence the journal or undo a guard's work), nor an index on one of the
     * ledger's tables, and the journal's sequence must not have been wound to its end. The engine refuses to open
     * such a ledger, also for reading (decision 0012): what it would read may itself be what the foreign code left.
     */
    private void requireGuards(Connection c) throws SQLException {
        requireGuards(c, db.file());
    }

    /**
     * The same check for any connection to {@code file} — the engine's own at open, and a reader's (the console,
     * the admin reader, a backup's or a copy's source): what a reader shows may itself be what foreign code left.
     */
    static void requireGuards(Connection c, Path file) throws SQLException {
        List<String> problems = guardProblems(c);
        if (!problems.isEmpty()) {
            throw new StorageException(
                    Problem.CORRUPT,
                    file,
                    "The database " + file + " was changed"
                            + " by hand (" + String.join("; ", problems.subList(0, Math.min(3, problems.size())))
                            + (problems.size() > 3 ? "; and " + (problems.size() - 3) + " more" : "")
                            + "), so it no longer enforces the fence; refusing to open it, also for reading"
                            + " (see docs/schema.md, 'Guards').",
                    null);
        }
    }

    /**
     * What is wrong with the schema objects of the file's version, in words; empty when nothing is. A trigger the
     * schema created is a "guard"; an extra table (and an index on it) is left alone: it holds data, runs no code
     * and names none of the ledger's tables (decision 0012).
     */
    static List<String> guardProblems(Connection c) throws SQLException {
        int version = pragma(c, "user_version");
        List<String[]> objects = schemaObjects(c);
        List<String> problems = SchemaDigest.matchesFreshLedger(version, objects)
                ? new ArrayList<>()
                : objectProblems(version, objects);
        // Since version 14 no table has AUTOINCREMENT, and a file copied by VACUUM INTO (a backup) has no
        // sqlite_sequence at all: read it only where it is.
        boolean sequences;
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(
                        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_sequence'")) {
            sequences = rs.next() && rs.getLong(1) > 0;
        }
        if (sequences) {
            try (Statement s = c.createStatement();
                    ResultSet rs =
                            s.executeQuery("SELECT name, seq FROM sqlite_sequence WHERE seq > " + SEQUENCE_LIMIT)) {
                while (rs.next()) {
                    problems.add("the key sequence of " + rs.getString(1) + " was wound to " + rs.getLong(2));
                }
            }
        }
        if (version >= JOURNAL_WITHOUT_AUTOINCREMENT_VERSION) {
            // From version 6 the journal's next seq is max(seq) + 1 (no sqlite_sequence row): a row
            // inserted by hand with a huge explicit seq winds it the same way (decision 0507).
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT max(seq) FROM fence_events")) {
                if (rs.next() && rs.getLong(1) > SEQUENCE_LIMIT) {
                    problems.add("the key sequence of fence_events was wound to " + rs.getLong(1));
                }
            }
        }
        return problems;
    }

    /**
     * Every row of {@code sqlite_master} that is not, exactly, a table's: type, name, table, text (null for none).
     * Exactly: SQLite loads a row by its text and compares the type column with it ignoring case, so a row typed
     * {@code 'TRIGGER'} by hand ({@code writable_schema}) is a live trigger that {@code type = 'trigger'} does not
     * find; such a row is read here and refused by name ({@link #objectProblems}).
     */
    static List<String[]> schemaObjects(Connection c) throws SQLException {
        List<String[]> objects = new ArrayList<>();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT type, name, tbl_name, sql FROM sqlite_master"
                        + " WHERE type IS NOT 'table' ORDER BY rowid")) {
            while (rs.next()) {
                objects.add(new String[] {rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4)});
            }
        }
        return objects;
    }

    /**
     * The rows {@link #schemaObjects} read (type, name, table, text) checked one by one against the text each
     * migration gave them: what was changed, in words; a row whose type is not exactly trigger, index or view is
     * refused as it is. Run when the file's objects are not byte for byte
     * those of a fresh ledger of its version ({@link SchemaDigest}), so it is what names the problem.
     */
    private static List<String> objectProblems(int version, List<String[]> objects) {
        Schema expected = version < 1 ? Schema.EMPTY : Expected.SCHEMAS.get(Math.min(version, LATEST) - 1);
        Map<String, String[]> present = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        for (String[] object : objects) {
            String type = object[0];
            String name = object[1];
            String table = object[2];
            String sql = object[3];
            SchemaObject mine = expected.objects().get(name);
            if (!"trigger".equals(type) && !"index".equals(type) && !"view".equals(type)) {
                // written by hand: SQLite may still load it as what its text creates
                problems.add("schema row " + name + " of type '" + type + "' was not created by Sovereign's schema");
            } else if (mine != null && mine.type().equals(type)) {
                present.put(name, new String[] {table, sql});
            } else if (type.equals("index") && sql == null && name.startsWith("sqlite_autoindex_")) {
                continue; // a UNIQUE or PRIMARY KEY constraint's own index, part of its table
            } else if (type.equals("index") && !expected.tables().contains(table)) {
                continue; // an index on a table that is not the ledger's
            } else if (type.equals("view")) {
                problems.add("view " + name + " was not created by Sovereign's schema");
            } else {
                problems.add(type + " " + name + " on " + table + " was not created by Sovereign's schema");
            }
        }
        for (SchemaObject o : expected.objects().values()) {
            String what = o.type().equals("trigger") ? "guard " : "index ";
            String[] found = present.get(o.name());
            if (found == null) {
                problems.add(what + o.name() + " is missing");
            } else if (!found[0].equals(o.table())) {
                problems.add(what + o.name() + " now " + (o.type().equals("trigger") ? "guards " : "indexes ")
                        + found[0] + " instead of " + o.table());
            } else if (found[1] == null || !normalized(found[1]).equals(o.normalizedSql())) {
                problems.add(what + o.name() + " was replaced by different code");
            }
        }
        return problems;
    }

    /** A trigger or index a migration creates: what every open expects to find in {@code sqlite_master}. */
    private record SchemaObject(String type, String name, String table, String normalizedSql) {}

    /** The ledger's tables and the triggers and indexes on them after some version, by name in creation order. */
    private record Schema(Set<String> tables, Map<String, SchemaObject> objects) {
        static final Schema EMPTY = new Schema(Set.of(), Map.of());
    }

    private static final Pattern WHITESPACE = Pattern.compile("\\s+");
    private static final Pattern CREATE_TABLE = Pattern.compile("(?i)CREATE\\s+TABLE\\s+(\\w+)");
    private static final Pattern CREATE_INDEX =
            Pattern.compile("(?i)CREATE\\s+(?:UNIQUE\\s+)?INDEX\\s+(\\w+)\\s+ON\\s+(\\w+)");
    private static final Pattern DROP =
            Pattern.compile("(?i)DROP\\s+(TABLE|INDEX|TRIGGER)\\s+(?:IF\\s+EXISTS\\s+)?(\\w+)");
    private static final Pattern RENAME_TABLE =
            Pattern.compile("(?i)ALTER\\s+TABLE\\s+(\\w+)\\s+RENAME\\s+TO\\s+(\\w+)");

    /**
     * The schema each version leaves (index {@code v - 1}), read once per JVM from the scripts in order: a
     * {@code CREATE} adds a table, index or trigger, a {@code DROP} removes one (dropping a table removes its
     * indexes and triggers), a rename moves a table. A later version that re-creates an object by the same name
     * replaces what the earlier one created, so a file is checked against the text of the version that last wrote it.
     * Read on first use, not with the class: {@link #LATEST} is asked by every CLI call ({@code --version}'s lines).
     */
    private static final class Expected {
        static final List<Schema> SCHEMAS = schemaAfterEachMigration();
    }

    private static List<Schema> schemaAfterEachMigration() {
        List<Schema> all = new ArrayList<>();
        Set<String> tables = new LinkedHashSet<>();
        Map<String, SchemaObject> objects = new LinkedHashMap<>();
        for (String migration : MIGRATIONS) {
            for (String statement : statements(load(migration))) {
                Matcher m;
                if ((m = TRIGGER_NAME.matcher(statement)).lookingAt()) {
                    Matcher on = TRIGGER_TABLE.matcher(statement);
                    String name = m.group(1);
                    objects.remove(name);
                    objects.put(
                            name,
                            new SchemaObject("trigger", name, on.find() ? on.group(1) : null, normalized(statement)));
                } else if ((m = CREATE_INDEX.matcher(statement)).lookingAt()) {
                    objects.remove(m.group(1));
                    objects.put(m.group(1), new SchemaObject("index", m.group(1), m.group(2), normalized(statement)));
                } else if ((m = CREATE_TABLE.matcher(statement)).lookingAt()) {
                    tables.add(m.group(1));
                } else if ((m = DROP.matcher(statement)).lookingAt()) {
                    String name = m.group(2);
                    if (m.group(1).equalsIgnoreCase("TABLE")) {
                        tables.remove(name);
                        objects.values().removeIf(o -> name.equals(o.table()));
                    } else {
                        objects.remove(name);
                    }
                } else if ((m = RENAME_TABLE.matcher(statement)).lookingAt()) {
                    tables.remove(m.group(1));
                    tables.add(m.group(2));
                }
            }
            all.add(new Schema(Set.copyOf(tables), Collections.unmodifiableMap(new LinkedHashMap<>(objects))));
        }
        return List.copyOf(all);
    }

    private static String normalized(String sql) {
        String s = sql.strip();
        if (s.endsWith(";")) {
            s = s.substring(0, s.length() - 1);
        }
        return WHITESPACE.matcher(s).replaceAll(" ").strip();
    }

    /** The guard triggers the applied migrations created that the file no longer has, in order. */
    static List<String> missingGuards(Connection c) throws SQLException {
        return guardProblems(c).stream()
                .filter(p -> p.startsWith("guard ") && p.endsWith(" is missing"))
                .map(p -> p.substring("guard ".length(), p.length() - " is missing".length()))
                .toList();
    }

    private static String load(String name) {
        String path = "migrations/" + name;
        try (InputStream in = Migrator.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("missing migration resource " + path);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read migration resource " + path, e);
        }
    }

    /**
     * Splits a script into statements: a statement ends at a line ending in ';', except inside a
     * {@code CREATE TRIGGER}, which ends at a line ending in {@code END;}. Comment lines are dropped.
     */
    static List<String> statements(String script) {
        List<String> out = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        boolean trigger = false;
        for (String line : script.split("\n")) {
            String t = line.strip();
            if (t.isEmpty() || t.startsWith("--")) {
                continue;
            }
            if (t.matches(".*;\\s*--.*")) {
                // the statement would not end on this line and run on into the next one, which the driver then drops
                // without a word (found writing version 17)
                throw new IllegalStateException("migration script line ends in a comment after its ';': " + t);
            }
            if (current.length() == 0) {
                // a statement's first line says whether it is a trigger (read once, not on every line: triggers are
                // long)
                trigger = t.toUpperCase(Locale.ROOT).startsWith("CREATE TRIGGER");
            }
            current.append(line).append('\n');
            if (t.endsWith(";") && (!trigger || t.toUpperCase(Locale.ROOT).endsWith("END;"))) {
                out.add(current.toString().strip());
                current.setLength(0);
            }
        }
        if (!current.toString().isBlank()) {
            throw new IllegalStateException("migration script ends inside a statement: " + current);
        }
        return out;
    }

    static int pragma(Connection c, String name) throws SQLException {
        return count(c, "PRAGMA " + name);
    }

    private static int count(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            return rs.next() ? rs.getInt(1) : 0;
        }
    }
}
