package dev.sovereign.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sovereign.engine.cli.CliHarness.Result;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code sovereign run --allow-command} and {@code assign}'s warning (issue 19, decision 0800): a
 * {@code command:} assignment runs only in a process started with a pattern that matches it.
 */
class CliAllowCommandTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private CliHarness cli;
    private Path marker;

    @BeforeEach
    void setUp() {
        cli = new CliHarness(temp.dir(), new SettableClock());
        cli.ok("init");
        cli.ok("actor", "add", "operator");
        marker = temp.dir().resolve("ran");
    }

    private String assignTouch() {
        return cli.ok("assign", "operator", "--provider", "command:touch " + marker, "--json")
                .onlyJson()
                .get("assignment")
                .asText();
    }

    @Test
    void assignSaysThatACommandRunsOnlyWhereAPatternAllowsIt() {
        Result r = cli.ok("assign", "operator", "--provider", "command:touch " + marker);

        assertThat(r.out())
                .contains("sovereign run asg_")
                .contains("--allow-command '<pattern>'")
                .contains("a shell command runs only in a worker or run started with an --allow-command pattern");
        assertThat(cli.ok("assign", "operator", "--provider", "scripted:ms=0").out())
                .doesNotContain("allow-command");
        assertThat(cli.ok("assign", "--help").out()).contains("--allow-command");
    }

    @Test
    void runWithoutAPatternRefusesWithTheCategoryAndLeavesTheAssignmentCreated() {
        String id = assignTouch();

        Result r = cli.run("run", id);

        assertThat(r.exit()).isEqualTo(ExitCode.REFUSED);
        assertThat(r.out()).isEmpty();
        assertThat(r.errLines())
                .singleElement()
                .asString()
                .startsWith("refused (command_not_allowed): ")
                .contains(id)
                .contains("touch " + marker);
        assertThat(marker).doesNotExist();
        JsonNode rejection = cli.ok("rejections", "--json").onlyJson();
        assertThat(rejection.get("category").asText()).isEqualTo("command_not_allowed");
        assertThat(rejection.get("resource_id").asText()).isEqualTo(id);
        assertThat(cli.ok("assignments", "--json").onlyJson().get("state").asText())
                .isEqualTo("CREATED");
    }

    @Test
    void runWithAMatchingPatternRunsItAndWithAnotherPatternRefuses() {
        String id = assignTouch();

        Result other = cli.run("run", id, "--allow-command", "echo *", "--json");
        assertThat(other.exit()).isEqualTo(ExitCode.REFUSED);
        assertThat(other.onlyJson().get("category").asText()).isEqualTo("command_not_allowed");

        Result ok = cli.ok("run", id, "--allow-command", "echo *", "--allow-command", "touch *", "--json");
        assertThat(ok.onlyJson().get("state").asText()).isEqualTo("COMPLETED");
        assertThat(marker).exists();
    }

    @Test
    void patternsMayComeFromAFileWithCommentsAndBlankLines() throws Exception {
        String id = assignTouch();
        Path patterns = Files.writeString(temp.dir().resolve("allowed.txt"), "# nightly jobs\n\ntouch *\n");

        assertThat(cli.ok("run", id, "--allow-commands-from", patterns.toString(), "--json")
                        .onlyJson()
                        .get("state")
                        .asText())
                .isEqualTo("COMPLETED");
    }

    @Test
    void aBadPatternOrAMissingPatternFileIsBadInputInOneSentence() {
        String id = assignTouch();

        Result dangling = cli.run("run", id, "--allow-command", "touch \\");
        assertThat(dangling.exit()).isEqualTo(ExitCode.BAD_INPUT);
        assertThat(dangling.errLines()).singleElement().asString().contains("Invalid --allow-command pattern");

        Result missing = cli.run(
                "worker",
                "--actor",
                "operator",
                "--allow-commands-from",
                temp.dir().resolve("nope.txt").toString());
        assertThat(missing.exit()).isEqualTo(ExitCode.BAD_INPUT);
        assertThat(missing.errLines()).singleElement().asString().contains("Cannot read the command patterns");
        assertThat(marker).doesNotExist();
    }
}
