package dev.sovereign.engine.run;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@link Runs#runAssignment} committed: the assignment in its terminal state, the attempt that
 * wrote it, the receipt, and where the workspace and receipt file are. Immutable.
 *
 * @param workspace   the assignment's workspace {@code <dataDirectory>/runs/<assignment>/}; the attempt's own
 *     folder and its output are inside it (see {@link RunFolders} and {@link #outputDirectory()})
 * @param receiptFile the receipt file ({@code <workspace>/<attempt>.receipt.json}), or null if it could not
 *     be written
 * @param warnings    problems after the commit (receipt file, workspace reclaim, the lease release); the
 *     ledger is canonical regardless, and a run with warnings is still a committed run (decision 0109)
 */
public record RunResult(
        Assignment assignment,
        Attempt attempt,
        Receipt receipt,
        Path workspace,
        Path receiptFile,
        List<String> warnings) {
    public RunResult {
        warnings = List.copyOf(warnings);
    }

    /**
     * The committed attempt's output folder, {@code <workspace>/<attempt>/output/}: the canonical output of
     * the assignment (no other attempt ever writes into it).
     */
    public Path outputDirectory() {
        return RunFolders.output(workspace, receipt.attemptId());
    }

    /** This result with one more warning: a problem after the commit that does not change it. */
    public RunResult withWarning(String warning) {
        List<String> more = new ArrayList<>(warnings);
        more.add(warning);
        return new RunResult(assignment, attempt, receipt, workspace, receiptFile, more);
    }
}
