package dev.sovereign.engine.reliability.fuzz;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * A command line as a fuzz target, for the CLI (contract §11) once it lands: give it a function from
 * arguments to {@link Outcome} (exit code, stdout, stderr) — e.g. one that runs picocli in-process
 * on the test's database — and command templates whose placeholders are filled with bad words:
 * {@code {actor}}, {@code {message}}, {@code {assignment}}, {@code {text}}, {@code {token}},
 * {@code {duration}}, {@code {spec}}, {@code {policy}}, {@code {count}}.
 *
 * <p>Judged by contract §11: exit 0 done (a read for {@link #READ_COMMANDS}); 1 refused (may add one
 * REJECTED row); 2 bad usage or bad input (adds nothing); 3 a storage error — a crash when the input
 * was the only thing wrong; anything else a crash. stderr must be at most one line and never a stack
 * trace. Use with {@code Fuzzer.run(new CliTarget(cli, CliTarget.SPEC_COMMANDS), database, seed, n)}.
 */
public final class CliTarget implements FuzzTarget {
    /** What one command line did. */
    public record Outcome(int exitCode, String stdout, String stderr) {}

    /** The commands of contract §11 that take input, with placeholders for the bad words. */
    public static final List<String> SPEC_COMMANDS = List.of(
            "actor add {text} --workspace-policy {policy}",
            "lease acquire {actor} --ttl {duration}",
            "lease renew {actor} --token {token} --ttl {duration}",
            "lease release {actor} --token {token}",
            "send --from {text} --to {actor} --subject {text} --body {text}",
            "inbox {actor}",
            "claim {message} --actor {actor} --ttl {duration}",
            "complete {message} --token {token}",
            "dead-letter {message} --token {token}",
            "assign {actor} --provider {spec} --workspace-policy {policy}",
            "run {assignment} --ttl {duration}",
            "retry {assignment}",
            "events --limit {count}");

    /** First words of the commands that only read. */
    public static final Set<String> READ_COMMANDS = Set.of("inbox", "status", "events", "rejections", "assignments");

    private final Function<List<String>, Outcome> cli;
    private final List<String> templates;

    public CliTarget(Function<List<String>, Outcome> cli, List<String> templates) {
        this.cli = cli;
        this.templates = List.copyOf(templates);
    }

    @Override
    public String name() {
        return "CLI";
    }

    @Override
    public Verdict call(BadInputs in) {
        String template = templates.get(in.random().nextInt(templates.size()));
        List<String> args = new ArrayList<>();
        for (String word : template.split(" ")) {
            args.add(fill(word, in));
        }
        String call = "sovereign " + EngineApiTarget.show(args.toArray());
        Outcome o;
        try {
            o = cli.apply(args);
        } catch (RuntimeException | Error e) {
            return Verdict.crashed(call, "the CLI function threw " + e);
        }
        String stderr = o.stderr() == null ? "" : o.stderr().strip();
        if (stderr.lines().count() > 1 || stderr.contains("Exception") || stderr.contains("\tat ")) {
            return Verdict.crashed(call, "exit " + o.exitCode() + " with more than one sentence on stderr: " + stderr);
        }
        boolean read = READ_COMMANDS.contains(args.get(0));
        return switch (o.exitCode()) {
            case 0 -> read ? Verdict.read(call) : Verdict.accepted(call);
            case 1 ->
                stderr.isEmpty() && !o.stdout().contains("refused")
                        ? Verdict.crashed(call, "exit 1 without saying what was refused")
                        : Verdict.refused(call, "exit 1: " + stderr, 1);
            case 2 ->
                stderr.isEmpty()
                        ? Verdict.crashed(call, "exit 2 without a sentence on stderr")
                        : Verdict.refused(call, "exit 2: " + stderr, 0);
            case 3 -> Verdict.crashed(call, "a storage error (exit 3) for bad input: " + stderr);
            default -> Verdict.crashed(call, "exit " + o.exitCode() + ": " + stderr);
        };
    }

    private static String fill(String word, BadInputs in) {
        return switch (word) {
            case "{actor}" -> orWord(in.actor(), in);
            case "{message}" -> orWord(in.message(), in);
            case "{assignment}" -> orWord(in.assignment(), in);
            case "{text}" -> in.word();
            case "{token}", "{count}" -> in.tokenWord();
            case "{duration}" -> in.durationWord();
            case "{spec}" -> orWord(in.providerSpec(), in);
            case "{policy}" -> orWord(in.workspacePolicy(), in);
            default -> word;
        };
    }

    private static String orWord(String value, BadInputs in) {
        return value == null ? in.word() : value;
    }
}
