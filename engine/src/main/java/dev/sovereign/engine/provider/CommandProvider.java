package dev.sovereign.engine.provider;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code command:<shell command>}: runs the command with {@code sh -c} in the workspace directory,
 * stdin empty, stdout and stderr captured to {@code output/stdout.txt} and {@code output/stderr.txt}.
 *
 * <p>Exit status → outcome: {@code 0} → {@code completed}; {@value #BLOCKED_EXIT_STATUS}
 * ({@code EX_TEMPFAIL} of sysexits.h) → {@code blocked}; anything else, or death by a signal →
 * {@code failed} ({@code exit_status}). See docs/decisions/0102-command-provider-exit-statuses.md.
 *
 * <p>On cancellation (the lease or attempt was lost) the whole process tree is destroyed with
 * SIGKILL: every descendant the shell started, then the shell itself. A grandchild that detached
 * itself into another session before that cannot be found this way. The environment carries
 * {@code SOVEREIGN_ASSIGNMENT}, {@code SOVEREIGN_ATTEMPT}, {@code SOVEREIGN_ATTEMPT_TOKEN},
 * {@code SOVEREIGN_ACTOR} and {@code SOVEREIGN_OUTPUT}. Immutable.
 */
public final class CommandProvider implements Provider {
    public static final String KIND = "command";
    /** The exit status a command uses to report {@code blocked}. */
    public static final int BLOCKED_EXIT_STATUS = 75;

    private final String command;

    public CommandProvider(String command) {
        if (command == null || command.isBlank()) {
            throw new IllegalArgumentException("the command must not be empty");
        }
        this.command = command;
    }

    public static CommandProvider parse(String argument) {
        return new CommandProvider(argument);
    }

    public String command() {
        return command;
    }

    @Override
    public ProviderResult run(Job job) throws IOException {
        ProcessBuilder pb = new ProcessBuilder("sh", "-c", command)
                .directory(job.workspace().toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectOutput(job.output().resolve("stdout.txt").toFile())
                .redirectError(job.output().resolve("stderr.txt").toFile());
        pb.environment().put("SOVEREIGN_ASSIGNMENT", String.valueOf(job.assignmentId()));
        pb.environment().put("SOVEREIGN_ATTEMPT", String.valueOf(job.attemptId()));
        pb.environment().put("SOVEREIGN_ATTEMPT_TOKEN", Long.toString(job.attemptToken()));
        pb.environment().put("SOVEREIGN_ACTOR", String.valueOf(job.actorId()));
        pb.environment().put("SOVEREIGN_OUTPUT", job.output().toString());
        Process process = pb.start();
        job.cancellation().onCancel(() -> destroyTree(process.toHandle()));
        int status;
        try {
            status = process.waitFor();
        } catch (InterruptedException e) {
            destroyTree(process.toHandle());
            Thread.currentThread().interrupt();
            return ProviderResult.cancelled(job.cancellation().reason().orElse("interrupted")
                    + "; the command's process tree was destroyed");
        }
        if (job.cancellation().isCancelled()) {
            return ProviderResult.cancelled(job.cancellation().reason().orElse("cancelled")
                    + "; the command's process tree was destroyed");
        }
        if (status == 0) {
            return ProviderResult.completed("command exited 0");
        }
        if (status == BLOCKED_EXIT_STATUS) {
            return ProviderResult.blocked("command exited " + status + " (blocked)");
        }
        return ProviderResult.failed("exit_status", status > 128
                ? "command ended by signal " + (status - 128) + " (exit status " + status + ")"
                : "command exited " + status);
    }

    /**
     * Kills {@code root} and every descendant with SIGKILL. Descendants are collected before the
     * root dies (afterwards they are re-parented and can no longer be found from it), and the walk is
     * repeated once for children forked meanwhile.
     */
    static void destroyTree(ProcessHandle root) {
        for (int round = 0; round < 2; round++) {
            List<ProcessHandle> family = new ArrayList<>(root.descendants().toList());
            root.destroyForcibly();
            family.forEach(ProcessHandle::destroyForcibly);
        }
    }
}
