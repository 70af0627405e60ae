package dev.sovereign.engine.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The run a class-data sharing archive of the CLI is made from (docs/decisions/0321): the launcher starts it once
 * with {@code -XX:ArchiveClassesAtExit}, and every later call maps the classes it loaded instead of reading and
 * verifying them from the jar again. It runs the everyday commands in-process, through the same command line a
 * call uses, on a throw-away ledger in a temporary folder it deletes: no variable, working directory or
 * ledger of the user's is read or written. Exits 0 when every command did what it should, else 1 (the launcher
 * then keeps no archive).
 */
public final class StartArchiveTraining {
    private static final Pattern ASSIGNMENT = Pattern.compile("asg_[0-9a-f]+");

    private StartArchiveTraining() {}

    public static void main(String[] args) throws IOException {
        Path dir = Files.createTempDirectory("sovereign-start-archive");
        int failed;
        try {
            failed = train(dir);
        } finally {
            deleteTree(dir);
        }
        System.exit(failed == 0 ? 0 : 1);
    }

    /** Runs the commands on a ledger in {@code dir}; returns how many did not exit as they should. */
    static int train(Path dir) {
        CliEnvironment environment = CliEnvironment.builder()
                .variables(Map.of())
                .workingDirectory(dir)
                .build();
        // Each call with the exit it must have: a refusal and a usage error too, their sentences are every script's.
        Map<String[], Integer> calls = new LinkedHashMap<>();
        calls.put(new String[] {"--db", "t.db", "init"}, ExitCode.OK);
        calls.put(new String[] {"--db", "t.db", "actor", "add", "a"}, ExitCode.OK);
        calls.put(new String[] {"--db", "t.db", "actor", "list"}, ExitCode.OK);
        calls.put(new String[] {"--db", "t.db", "lease", "list"}, ExitCode.OK);
        calls.put(new String[] {"--db", "t.db", "--json", "lease", "list"}, ExitCode.OK);
        calls.put(
                new String[] {"--db", "t.db", "--process", "proc_training", "lease", "acquire", "a", "--ttl", "1h"},
                ExitCode.OK);
        calls.put(new String[] {"--db", "t.db", "lease", "acquire", "a", "--ttl", "1h"}, ExitCode.REFUSED);
        calls.put(
                new String[] {"--db", "t.db", "--process", "proc_training", "lease", "renew", "a", "--token", "1"},
                ExitCode.OK);
        calls.put(
                new String[] {"--db", "t.db", "--process", "proc_training", "lease", "release", "a", "--token", "1"},
                ExitCode.OK);
        calls.put(new String[] {"--db", "t.db", "send", "--from", "a", "--to", "a", "--subject", "s"}, ExitCode.OK);
        calls.put(new String[] {"--db", "t.db", "inbox", "a"}, ExitCode.OK);
        calls.put(new String[] {"--db", "t.db", "messages"}, ExitCode.OK);
        calls.put(new String[] {"--db", "t.db", "assignments"}, ExitCode.OK);
        calls.put(new String[] {"--db", "t.db", "events"}, ExitCode.OK);
        calls.put(new String[] {"--db", "t.db", "rejections"}, ExitCode.OK);
        calls.put(new String[] {"--db", "t.db", "status"}, ExitCode.OK);
        calls.put(new String[] {"--db", "t.db", "--json", "status"}, ExitCode.OK);
        calls.put(new String[] {"--version"}, ExitCode.OK);
        calls.put(new String[] {"lease", "--help"}, ExitCode.OK);
        calls.put(new String[] {"lease", "acquire"}, ExitCode.BAD_INPUT);
        int failed = 0;
        for (Map.Entry<String[], Integer> call : calls.entrySet()) {
            failed += run(environment, call.getKey()) == call.getValue() ? 0 : 1;
        }
        StringWriter assigned = new StringWriter();
        failed += Cli.execute(
                                environment,
                                new PrintWriter(assigned, true),
                                new PrintWriter(new StringWriter()),
                                "--db",
                                "t.db",
                                "assign",
                                "a",
                                "--provider",
                                "scripted:ms=1,outcome=completed")
                        == 0
                ? 0
                : 1;
        Matcher id = ASSIGNMENT.matcher(assigned.toString());
        failed += id.find() && run(environment, "--db", "t.db", "run", id.group()) == 0 ? 0 : 1;
        return failed;
    }

    private static int run(CliEnvironment environment, String... args) {
        StringWriter sink = new StringWriter();
        PrintWriter writer = new PrintWriter(sink);
        int code = Cli.execute(environment, writer, writer, args);
        if (System.getProperty("sovereign.training.verbose") != null) {
            System.err.println(String.join(" ", args) + " -> " + code + "\n" + sink);
        }
        return code;
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
