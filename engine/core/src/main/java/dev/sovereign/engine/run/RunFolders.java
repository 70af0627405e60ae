package dev.sovereign.engine.run;

import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * Where one attempt's files are, derived from names alone (nothing of it is stored in the ledger):
 * <pre>
 *   &lt;dataDirectory&gt;/runs/&lt;assignment&gt;/                  the assignment's workspace
 *       &lt;attempt&gt;.receipt.json                         the receipt file of the committed attempt
 *       &lt;attempt&gt;/                                     that attempt's own workspace (the command's cwd)
 *           output/                                     that attempt's output (stdout.txt, stderr.txt, ...)
 * </pre>
 * Every attempt gets its own folder, so a stale attempt that keeps running after it lost its grant
 * writes only into its own folder, which never becomes canonical: the output of an assignment is the
 * output folder of the attempt its receipt names. See docs/decisions/0108-per-attempt-workspaces.md.
 * Stateless.
 */
public final class RunFolders {
    /** The name of an attempt's output folder inside its workspace. */
    public static final String OUTPUT = "output";
    /** The suffix of a receipt file, {@code <attempt>.receipt.json}, in the assignment's workspace. */
    public static final String RECEIPT_SUFFIX = ".receipt.json";

    private static final Pattern PLAIN_NAME = Pattern.compile("[A-Za-z0-9_-]{1,100}");

    private RunFolders() {}

    /** Whether {@code id} is a plain name that may become one path element (no separators, no dots). */
    public static boolean isPlainName(String id) {
        return id != null && PLAIN_NAME.matcher(id).matches();
    }

    /** {@code <dataDirectory>/runs/<assignment>}, or null when the id is not a plain name. */
    public static Path assignment(Path dataDirectory, String assignmentId) {
        return isPlainName(assignmentId) ? dataDirectory.resolve("runs").resolve(assignmentId) : null;
    }

    /** {@code <assignmentWorkspace>/<attempt>}, or null when the attempt id is not a plain name. */
    public static Path attempt(Path assignmentWorkspace, String attemptId) {
        return assignmentWorkspace != null && isPlainName(attemptId) ? assignmentWorkspace.resolve(attemptId) : null;
    }

    /** {@code <assignmentWorkspace>/<attempt>/output}, or null when a name is not plain. */
    public static Path output(Path assignmentWorkspace, String attemptId) {
        Path attempt = attempt(assignmentWorkspace, attemptId);
        return attempt == null ? null : attempt.resolve(OUTPUT);
    }

    /** {@code <dataDirectory>/runs/<assignment>/<attempt>/output}, or null when a name is not plain. */
    public static Path output(Path dataDirectory, String assignmentId, String attemptId) {
        return output(assignment(dataDirectory, assignmentId), attemptId);
    }
}
