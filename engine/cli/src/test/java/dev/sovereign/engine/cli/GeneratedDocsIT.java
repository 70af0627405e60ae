package dev.sovereign.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What this module's package phase generates from the picocli model (issue 18): the bash completion
 * script and the man pages. Run by failsafe after {@code package}, so it checks the real files, and
 * against the real command tree, so a command added later without reaching them fails here.
 */
class GeneratedDocsIT {
    private static final Path TARGET = Path.of(System.getProperty("basedir", "."), "target");

    /** The top-level commands, from the same tree the {@code sovereign} command runs. */
    private static List<String> topLevelCommands() {
        PrintWriter none = new PrintWriter(new StringWriter());
        return new ArrayList<>(Cli.create(CliEnvironment.builder().build(), none, none)
                .getSubcommands()
                .keySet());
    }

    @Test
    void theCompletionScriptCompletesEveryTopLevelCommandInBash() throws Exception {
        Path script = TARGET.resolve("sovereign_completion");
        assertThat(script).isRegularFile();
        assertThat(topLevelCommands()).hasSizeGreaterThan(10).contains("init", "lease", "status", "console");

        // Real bash, the real script: what does `sovereign <TAB>` offer?
        Process bash = new ProcessBuilder(
                        "bash",
                        "-c",
                        "source \"$1\" && COMP_WORDS=(sovereign '') && COMP_CWORD=1"
                                + " && COMP_LINE='sovereign ' && COMP_POINT=10 && _complete_sovereign sovereign '' sovereign"
                                + " && printf '%s\\n' \"${COMPREPLY[@]}\"",
                        "bash",
                        script.toString())
                .redirectErrorStream(true)
                .start();
        String offered = new String(bash.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(bash.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(bash.exitValue()).as(offered).isZero();
        assertThat(offered.lines().toList()).containsAll(topLevelCommands());
    }

    @Test
    void theManPageListsEveryTopLevelCommandAndEachHasItsOwnPage() throws IOException {
        Path man = TARGET.resolve("man/man1/sovereign.1");
        assertThat(man).isRegularFile();
        String page = Files.readString(man).replace("\\-", "-");
        assertThat(page).startsWith("'\\\" t").contains(".TH \"SOVEREIGN\" \"1\"");
        String commands = page.substring(page.indexOf(".SH \"COMMANDS\""));
        for (String command : topLevelCommands()) {
            // troff: each command is listed in bold in the COMMANDS section
            assertThat(commands).as("sovereign.1 lists %s", command).contains("\\fB" + command + "\\fP");
            assertThat(TARGET.resolve("man/man1/sovereign-" + command + ".1")).isRegularFile();
        }
    }
}
