package dev.sovereign.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sovereign.engine.base.FencingTokens;
import dev.sovereign.engine.cli.CliHarness.Result;
import dev.sovereign.engine.testing.RawSql;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code sovereign backup}, {@code restore}, {@code fence bump} and what {@code status} says about the ledger's
 * history (issue 26; decisions 0603-0605), and the empty file that is not a ledger (issue 26 item 8): through
 * picocli, in-process, on real files.
 */
class CliHistoryTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final SettableClock clock = new SettableClock();
    private CliHarness cli;

    @BeforeEach
    void setUp() {
        cli = new CliHarness(temp.dir(), clock);
    }

    @Test
    void anEmptyFileIsNotALedgerForAnyCommandAndIsLeftAsItWas() throws Exception {
        Path empty = temp.dir().resolve("z.db");
        Files.createFile(empty);
        for (String[] command : new String[][] {{"lease", "list"}, {"status"}, {"init"}, {"actor", "add", "a"}}) {
            Result r = cli.run(concat(new String[] {"--db", empty.toString()}, command));
            assertThat(r.exit()).as(String.join(" ", command)).isEqualTo(3);
            assertThat(r.errLines())
                    .singleElement()
                    .asString()
                    .startsWith("storage error (not_ours): The file " + empty + " is empty (0 bytes)")
                    .contains("sovereign restore");
            assertThat(Files.size(empty)).isZero();
        }
        assertThat(Files.list(temp.dir()).map(p -> p.getFileName().toString())).containsExactly("z.db");
        // a path where no file is: only init creates the ledger
        Path fresh = temp.dir().resolve("new.db");
        assertThat(cli.run("--db", fresh.toString(), "lease", "list").exit()).isEqualTo(3);
        assertThat(fresh).doesNotExist();
        cli.ok("--db", fresh.toString(), "init");
        assertThat(cli.ok("--db", fresh.toString(), "lease", "list").exit()).isZero();
    }

    @Test
    void backupRestoreAndStatusFromTheCommandLine() throws Exception {
        cli.ok("init");
        cli.ok("actor", "add", "a");
        cli.ok("actor", "add", "b");
        cli.ok("--process", "proc_one", "lease", "acquire", "a", "--ttl", "10m");
        assertThat(cli.ok("metrics").out()).doesNotContain("sovereign_last_backup_timestamp_seconds");
        JsonNode backup = cli.ok("backup", "b.db", "--json").onlyJson();
        assertThat(backup.get("last_token").asLong()).isEqualTo(1);
        // the ledger itself now says when it was last backed up: status and the metrics (issue 29 item 3)
        assertThat(cli.ok("status", "--json")
                        .onlyJson()
                        .findValue("last_backup_at")
                        .asLong())
                .isEqualTo(clock.millis());
        assertThat(cli.ok("metrics").out()).containsPattern("(?m)^sovereign_last_backup_timestamp_seconds [0-9.eE+]+$");
        assertThat(backup.get("epoch").asLong()).isZero();
        assertThat(backup.get("backup").asText())
                .isEqualTo(temp.dir().resolve("b.db").toString());
        cli.ok("--process", "proc_two", "lease", "acquire", "b", "--ttl", "10m");
        assertThat(cli.run("backup", "b.db").exit()).isEqualTo(1); // never over a file

        // the CLI's identities are durable: live until their beats are overdue (restore refuses over live processes)
        Result live = cli.run("restore", "b.db");
        assertThat(live.exit()).isEqualTo(1);
        assertThat(live.err()).startsWith("refused (target_live): ");
        clock.advance(Duration.ofMinutes(1));
        JsonNode restored = cli.ok("restore", "b.db", "--json").onlyJson();
        assertThat(restored.get("epoch").asLong()).isEqualTo(1);
        assertThat(restored.get("backup_token").asLong()).isEqualTo(1);
        assertThat(restored.get("replaced_epoch").asLong()).isZero();
        assertThat(restored.get("voided_leases").asLong()).isEqualTo(1);
        assertThat(Files.readString(temp.dir().resolve("b.db.restores"))).contains("restored epoch 1");

        JsonNode granted = cli.ok("lease", "acquire", "b", "--json").onlyJson();
        assertThat(granted.get("token").asLong())
                .isEqualTo(FencingTokens.firstTokenOf(1))
                .isNotEqualTo(2);
        Result status = cli.ok("status");
        assertThat(status.out()).contains("epoch        1 (since the restore at ");
        JsonNode json = cli.ok("status", "--json").onlyJson();
        assertThat(json.get("epoch").asLong()).isEqualTo(1);
        assertThat(json.get("last_epoch_start").get("kind").asText()).isEqualTo("restore");
        assertThat(json.get("went_backwards").isNull()).isTrue();
        assertThat(json.get("alarm").isNull()).isTrue();

        JsonNode bump = cli.ok("fence", "bump", "--json").onlyJson();
        assertThat(bump.get("epoch").asLong()).isEqualTo(2);
        assertThat(bump.get("voided_leases").asLong()).isEqualTo(1);
        assertThat(cli.ok("events", "--json").outLines())
                .anyMatch(l -> l.contains("\"FENCE_BUMPED\""))
                .anyMatch(l -> l.contains("\"LEDGER_RESTORED\""));
    }

    @Test
    void aLedgerPutBackByHandIsShownByStatusUntilABump() throws Exception {
        cli.ok("init");
        cli.ok("actor", "add", "a");
        cli.ok("actor", "add", "b");
        cli.ok("--process", "proc_one", "lease", "acquire", "a");
        Path copy = temp.dir().resolve("raw.db");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + temp.file());
                Statement s = c.createStatement()) {
            s.executeUpdate("backup to " + copy);
        }
        // a worker that saw token 2 reports the copy put back (its engine's own report, as LedgerHistoryTest shows)
        cli.ok("--process", "proc_two", "lease", "acquire", "b");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + temp.file());
                Statement s = c.createStatement()) {
            s.executeUpdate("restore from " + copy);
        }
        new RawSql(temp.file())
                .run(
                        false,
                        "INSERT INTO ledger_history (at, kind, epoch, from_token, to_token, seen_token,"
                                + " process_identity, detail) VALUES (0, 'backwards', 0, 1, 1, 2, 'proc_two', 'seen 2')");
        Result refused = cli.run("--process", "proc_three", "lease", "acquire", "b");
        assertThat(refused.exit()).isEqualTo(3);
        assertThat(refused.err()).startsWith("storage error (went_backwards): ").contains("sovereign fence bump");
        Result status = cli.ok("status");
        assertThat(status.out())
                .contains("ALARM")
                .contains("The ledger went backwards: process proc_two had seen token 2");
        assertThat(cli.ok("status", "--json").onlyJson().get("alarm").asText()).contains("went backwards");
        cli.ok("fence", "bump");
        assertThat(cli.ok("--process", "proc_three", "lease", "acquire", "b", "--json")
                        .onlyJson()
                        .get("token")
                        .asLong())
                .isEqualTo(FencingTokens.firstTokenOf(1));
        assertThat(cli.ok("status", "--json").onlyJson().get("alarm").isNull()).isTrue();
    }

    @Test
    void aDamagedCounterIsNamedByStatusInOneSentence() throws Exception {
        cli.ok("init");
        // a raw writer with the guards out of the way (SQLite cannot refuse DDL): the counter as text
        RawSql raw = new RawSql(temp.file());
        List<String> guards =
                raw.rows("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'token_counter'");
        List<String> names =
                raw.rows("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'token_counter'");
        List<String> statements = new ArrayList<>(List.of("BEGIN IMMEDIATE"));
        names.forEach(n -> statements.add("DROP TRIGGER " + n.substring(0, n.length() - 1)));
        statements.add("UPDATE token_counter SET last_token = 'abc'");
        guards.forEach(g -> statements.add(g.substring(0, g.length() - 1)));
        statements.add("COMMIT");
        raw.run(false, statements.toArray(String[]::new));
        Result r = cli.run("status");
        assertThat(r.exit()).isEqualTo(3);
        assertThat(r.errLines())
                .singleElement()
                .asString()
                .startsWith("storage error (corrupt): ")
                .contains("holds 'abc' (text), not a whole number");
        assertThat(r.out()).doesNotContain("last token");
    }

    @Test
    void onAServerBackupAndRestoreSayWhatToDoInOneSentence() {
        String url = "jdbc:postgresql://localhost:1/ledger?user=op";
        Result b = cli.run("--db", url, "backup", "x.dump");
        assertThat(b.exit()).isEqualTo(2);
        assertThat(b.errLines())
                .singleElement()
                .asString()
                .startsWith("bad input: A PostgreSQL ledger is backed up with" + " pg_dump")
                .contains("sovereign fence bump");
        Result r = cli.run("--db", url, "restore", "x.dump");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.errLines())
                .singleElement()
                .asString()
                .contains("pg_restore")
                .contains("sovereign fence bump");
    }

    private static String[] concat(String[] a, String[] b) {
        String[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
