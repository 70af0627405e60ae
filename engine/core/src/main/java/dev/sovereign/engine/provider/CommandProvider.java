package dev.sovereign.engine.provider;

import dev.sovereign.engine.base.OwnerOnly;
import java.io.File;
import java.io.IOException;

/**
 * {@code command:<shell command>}: runs the command with {@code sh -c} in the attempt's own workspace
 * directory ({@code runs/<assignment>/<attempt>/}), stdin empty, stdout and stderr captured to that
 * attempt's {@code output/stdout.txt} and {@code output/stderr.txt}. No two attempts share a file.
 *
 * <p>Exit status → outcome: {@code 0} → {@code completed}; {@value #BLOCKED_EXIT_STATUS}
 * ({@code EX_TEMPFAIL} of sysexits.h) → {@code blocked}; anything else, or death by a signal →
 * {@code failed} ({@code exit_status}). See docs/decisions/0102-command-provider-exit-statuses.md.
 *
 * <p>The shell runs in a process group (a session) of its own, started with {@code setsid}. On
 * cancellation (the lease or attempt was lost, the run was interrupted, the engine closed) the whole
 * group gets SIGTERM, then SIGKILL after {@link CommandProcess#GRACE}: also a background grandchild whose
 * parent already died. Only a process that moved itself into another session or group escapes. See
 * docs/decisions/0108-per-attempt-workspaces.md. The environment carries {@code SOVEREIGN_ASSIGNMENT},
 * {@code SOVEREIGN_ATTEMPT}, {@code SOVEREIGN_ATTEMPT_TOKEN}, {@code SOVEREIGN_ACTOR},
 * {@code SOVEREIGN_WORKSPACE} (the attempt's folder) and {@code SOVEREIGN_OUTPUT} (its output folder).
 * Immutable.
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
        // The captured output is the owner's only, like every file Sovereign writes (decision 0801).
        OwnerOnly.writeString(job.output().resolve("stdout.txt"), "");
        OwnerOnly.writeString(job.output().resolve("stderr.txt"), "");
        ProcessBuilder pb = new ProcessBuilder(CommandProcess.argv(command))
                .directory(job.workspace().toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(job.output().resolve("stdout.txt").toFile())
                .redirectError(job.output().resolve("stderr.txt").toFile());
        pb.environment().put("SOVEREIGN_ASSIGNMENT", String.valueOf(job.assignmentId()));
        pb.environment().put("SOVEREIGN_ATTEMPT", String.valueOf(job.attemptId()));
        pb.environment().put("SOVEREIGN_ATTEMPT_TOKEN", Long.toString(job.attemptToken()));
        pb.environment().put("SOVEREIGN_ACTOR", String.valueOf(job.actorId()));
        pb.environment().put("SOVEREIGN_WORKSPACE", job.workspace().toString());
        pb.environment().put("SOVEREIGN_OUTPUT", job.output().toString());
        CommandProcess shell = CommandProcess.start(pb);
        job.cancellation().onCancel(shell::stopInBackground);
        int status;
        try {
            status = shell.process().waitFor();
        } catch (InterruptedException e) {
            shell.stop();
            Thread.currentThread().interrupt();
            return ProviderResult.cancelled(
                    job.cancellation().reason().orElse("interrupted") + "; the command's process group was stopped");
        }
        if (job.cancellation().isCancelled()) {
            shell.stop(); // the shell may have ended by the SIGTERM while its group lives on
            return ProviderResult.cancelled(
                    job.cancellation().reason().orElse("cancelled") + "; the command's process group was stopped");
        }
        if (status == 0) {
            return ProviderResult.completed("command exited 0");
        }
        if (status == BLOCKED_EXIT_STATUS) {
            return ProviderResult.blocked("command exited " + status + " (blocked)");
        }
        return ProviderResult.failed(
                "exit_status",
                status > 128
                        ? "command ended by signal " + (status - 128) + " (exit status " + status + ")"
                        : "command exited " + status);
    }
}
