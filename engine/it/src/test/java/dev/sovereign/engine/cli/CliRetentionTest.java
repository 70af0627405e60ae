package dev.sovereign.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sovereign.engine.cli.CliHarness.Result;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sovereign retention} and {@code sovereign prune} (decision 0018), in-process through picocli with a settable
 * clock: the policy shown and set for the ledger, a bad duration one sentence (exit 2), a dry run that counts what the
 * prune then removes, and an export whose JSON lines are exactly the rows removed, one file per table and day.
 */
class CliRetentionTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    @TempDir
    Path exports;

    @Test
    void thePolicyIsShownAndSetAndAPruneRemovesAndExportsWhatTheDryRunCounted() throws Exception {
        SettableClock clock = new SettableClock();
        CliHarness cli = new CliHarness(temp.dir(), clock);
        cli.ok("init");
        cli.ok("actor", "add", "x");
        for (int i = 0; i < 4; i++) {
            long token = cli.ok("--process", "proc_retention_test", "lease", "acquire", "x", "--ttl", "5s", "--json")
                    .onlyJson()
                    .get("token")
                    .asLong();
            cli.ok("--process", "proc_retention_test", "lease", "release", "x", "--token", Long.toString(token));
        }

        JsonNode policy = cli.ok("retention", "--json").onlyJson();
        assertThat(policy.get("keep_journal_ms").asLong())
                .isEqualTo(Duration.ofDays(30).toMillis());
        assertThat(policy.get("default").asBoolean()).isTrue();
        assertThat(cli.ok("retention", "--keep", "7d").out()).containsPattern("journal kept +7d");
        // each kind its own policy (decision 0020); the others unchanged
        assertThat(cli.ok("retention", "--keep-runs", "14d", "--keep-processes", "2d")
                        .out())
                .containsPattern("journal kept +7d")
                .containsPattern("finished runs +14d")
                .containsPattern("finished messages +30d")
                .containsPattern("stopped processes +2d");
        JsonNode kinds = cli.ok("retention", "--json").onlyJson();
        assertThat(kinds.get("keep_runs_ms").asLong())
                .isEqualTo(Duration.ofDays(14).toMillis());
        assertThat(kinds.get("keep_processes_ms").asLong())
                .isEqualTo(Duration.ofDays(2).toMillis());
        assertThat(kinds.get("keep_messages_ms").asLong())
                .isEqualTo(Duration.ofDays(30).toMillis());
        Result runsTooShort = cli.run("retention", "--keep-runs", "10m");
        assertThat(runsTooShort.exit()).isEqualTo(2);
        assertThat(runsTooShort.err().strip())
                .startsWith("bad input (invalid_argument): Finished runs are kept for at least an hour")
                .doesNotContain("\n");
        Result tooShort = cli.run("retention", "--keep", "30m");
        assertThat(tooShort.exit()).isEqualTo(2);
        assertThat(tooShort.err().strip())
                .contains("at least an hour and at most 100 years; 30 minutes is outside that")
                .doesNotContain("\n")
                .doesNotContain("Exception");
        assertThat(cli.run("prune", "--dry-run", "--export", exports.toString()).exit())
                .isEqualTo(2);
        assertThat(cli.run("prune", "--batch", "0").exit()).isEqualTo(2);

        clock.advance(Duration.ofDays(8));
        cli.ok(
                "--process",
                "proc_retention_test",
                "lease",
                "acquire",
                "x",
                "--ttl",
                "5s"); // the journal's newest row: the rest is older than 7 days
        JsonNode dry = cli.ok("prune", "--dry-run", "--json").onlyJson();
        long wouldGo = dry.get("journal_rows").asLong();
        assertThat(wouldGo).isPositive();

        JsonNode pruned = cli.ok("prune", "--export", exports.toString(), "--batch", "3", "--json")
                .onlyJson();
        assertThat(pruned.get("dry_run").asBoolean()).isFalse();
        assertThat(pruned.get("journal_rows").asLong()).isEqualTo(wouldGo);
        assertThat(pruned.get("watermark_after").asLong())
                .isGreaterThan(pruned.get("watermark_before").asLong());
        assertThat(pruned.get("exported_files")).isNotEmpty();

        List<JsonNode> exported = new ArrayList<>();
        List<JsonNode> processes = new ArrayList<>();
        try (Stream<Path> files = Files.list(exports)) {
            for (Path f : files.toList()) {
                // the journal's rows, and the CLI's own stopped processes older than --keep-processes 2d
                assertThat(f.getFileName().toString()).matches("(fence_events|processes)-\\d{4}-\\d{2}-\\d{2}\\.jsonl");
                for (String line : Files.readAllLines(f)) {
                    (f.getFileName().toString().startsWith("processes") ? processes : exported)
                            .add(JSON.readTree(line));
                }
            }
        }
        assertThat((long) exported.size()).isEqualTo(wouldGo);
        assertThat((long) processes.size())
                .isEqualTo(pruned.get("processes").asLong())
                .isPositive();
        assertThat(processes)
                .allSatisfy(row -> assertThat(row.get("stopped_at").isNumber()).isTrue());
        assertThat(exported)
                .allSatisfy(row -> assertThat(row.has("seq") && row.has("kind")).isTrue());
        JsonNode after = cli.ok("retention", "--json").onlyJson();
        assertThat(after.get("pruned_rows").asLong()).isEqualTo(wouldGo);
        assertThat(after.get("last_pruned_at").isNull()).isFalse();
        assertThat(cli.ok("status", "--json").onlyJson().get("pruned_rows").asLong())
                .isEqualTo(wouldGo);
    }
}
