package dev.sovereign.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.testing.SettableClock;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * A call that names its command builds only that command's branch (docs/decisions/0321); it must behave exactly
 * as the whole tree does: the same help for every command, the same errors and exit codes.
 */
class CliOneBranchTest {
    @TempDir
    Path dir;

    private CliHarness cli() {
        return new CliHarness(dir, new SettableClock());
    }

    @Test
    void aCallThatNamesItsCommandBuildsOnlyThatBranch() {
        CommandLine line = Cli.forArguments(cli().environment(), sink(), sink(), "--db", "x.db", "lease", "list");
        assertThat(line.getSubcommands().keySet()).containsExactly("lease");
        assertThat(line.getSubcommands().get("lease").getSubcommands()).containsKeys("list", "acquire");
    }

    @Test
    void everyCommandIsFoundByItsNameAsTheWholeTreeFindsIt() {
        CommandLine whole = Cli.create(cli().environment(), sink(), sink());
        whole.getSubcommands().forEach((name, line) -> {
            if (!name.equals("help")) {
                assertThat(Cli.commandNamed(name))
                        .as(
                                "the command %s (class %s; the scan finds a command by its conventional class name %s)",
                                name, line.getCommand().getClass().getSimpleName(), Cli.conventionalClassName(name))
                        .contains(line.getCommand().getClass());
            }
        });
    }

    @Test
    void theScanSkipsTheValueOfEveryTopLevelOptionThatTakesOne() {
        Set<String> takingAValue = new CommandLine(new SovereignCommand(cli().environment()))
                .getCommandSpec().options().stream()
                        .filter(o -> !o.typeInfo().isBoolean() && o.arity().max() > 0)
                        .flatMap(o -> Stream.of(o.names()))
                        .collect(Collectors.toSet());
        assertThat(Cli.OPTIONS_WITH_A_VALUE).isEqualTo(takingAValue);
    }

    @Test
    void theVersionAloneNeedsNoCommand() {
        assertThat(Cli.forArguments(cli().environment(), sink(), sink(), "--version")
                        .getSubcommands())
                .isEmpty();
    }

    @Test
    void theScanFindsTheCommandPastTheTopLevelOptions() {
        assertThat(Cli.commandNamed("--db", "my.db", "lease", "list")).contains(LeaseCommand.class);
        assertThat(Cli.commandNamed("--db=x.db", "--json", "lease", "list")).contains(LeaseCommand.class);
        assertThat(Cli.commandNamed("--process", "proc_a", "--busy-timeout", "1s", "status"))
                .contains(StatusCommand.class);
        assertThat(Cli.commandNamed("help", "lease")).isEmpty();
        assertThat(Cli.commandNamed("leese", "list")).isEmpty();
        assertThat(Cli.commandNamed("@args.txt")).isEmpty();
        assertThat(Cli.commandNamed("--", "lease")).isEmpty();
        assertThat(Cli.commandNamed("--json")).isEmpty();
        assertThat(Cli.commandNamed("--help", "lease")).isEmpty();
        assertThat(Cli.commandNamed("-hV", "lease")).isEmpty();
        assertThat(Cli.commandNamed("--db", "status", "init")).isEmpty();
        assertThat(Cli.commandNamed("--db=init", "status")).isEmpty();
    }

    @Test
    void everyCommandsHelpIsTheSameFromItsBranchAsFromTheWholeTree() {
        List<List<String>> paths = new ArrayList<>();
        walk(Cli.create(cli().environment(), sink(), sink()), List.of(), paths);
        assertThat(paths).hasSizeGreaterThanOrEqualTo(40);
        for (List<String> path : paths) {
            List<String> args = new ArrayList<>(path);
            args.add("--help");
            sameFromBothTrees(args.toArray(String[]::new));
        }
    }

    @Test
    void errorsAndOddCallsAreTheSameFromItsBranchAsFromTheWholeTree() {
        Stream.of(
                        new String[] {},
                        new String[] {"--version"},
                        new String[] {"-V", "--version"},
                        new String[] {"--version", "--help"},
                        new String[] {"--version", "lease"},
                        new String[] {"lease"},
                        new String[] {"lease", "lst"},
                        new String[] {"lease", "acquire"},
                        new String[] {"lease", "acquire", "a", "--ttl", "ten"},
                        new String[] {"--bogus", "lease", "list"},
                        new String[] {"lease", "list", "--bogus"},
                        new String[] {"lease", "list", "extra"},
                        new String[] {"--db"},
                        new String[] {"--db", "lease"},
                        new String[] {"--process", "pid42", "status"},
                        new String[] {"--db", "", "status"},
                        new String[] {"leese", "list"},
                        new String[] {"help", "lease"},
                        new String[] {"lab", "--list"},
                        new String[] {"--help", "lease"},
                        new String[] {"-h", "lease", "list"},
                        new String[] {"-hV", "lease"},
                        new String[] {"--db", "x.db", "--help", "status"},
                        new String[] {"--db", "status", "init"},
                        new String[] {"--json", "--db=init", "status"},
                        new String[] {"--process", "lease", "status"},
                        new String[] {"--busy-timeout", "lease", "status"},
                        new String[] {"--db", "jdbc:postgresql://h/db?password=secret", "lab", "list"})
                .forEach(this::sameFromBothTrees);
    }

    private void sameFromBothTrees(String... args) {
        StringWriter wholeOut = new StringWriter();
        StringWriter wholeErr = new StringWriter();
        int whole = Cli.create(cli().environment(), new PrintWriter(wholeOut, true), new PrintWriter(wholeErr, true))
                .execute(args);
        StringWriter branchOut = new StringWriter();
        StringWriter branchErr = new StringWriter();
        int branch = Cli.execute(
                cli().environment(), new PrintWriter(branchOut, true), new PrintWriter(branchErr, true), args);
        String call = Arrays.toString(args);
        assertThat(branch).as("exit of %s", call).isEqualTo(whole);
        assertThat(branchOut.toString()).as("stdout of %s", call).isEqualTo(wholeOut.toString());
        assertThat(branchErr.toString()).as("stderr of %s", call).isEqualTo(wholeErr.toString());
    }

    private static void walk(CommandLine line, List<String> path, List<List<String>> into) {
        line.getSubcommands().forEach((name, sub) -> {
            if (!name.equals("help")) {
                List<String> p = new ArrayList<>(path);
                p.add(name);
                into.add(p);
                walk(sub, p, into);
            }
        });
    }

    private static PrintWriter sink() {
        return new PrintWriter(new StringWriter());
    }
}
