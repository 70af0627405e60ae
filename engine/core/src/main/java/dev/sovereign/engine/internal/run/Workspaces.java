package dev.sovereign.engine.internal.run;

import static java.nio.file.LinkOption.NOFOLLOW_LINKS;

import dev.sovereign.engine.base.OwnerOnly;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.internal.Json;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.Receipt;
import dev.sovereign.engine.run.RunFolders;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;

/**
 * Run workspaces under {@code <dataDirectory>/runs/<assignment>/}, one folder per attempt
 * ({@code <assignment>/<attempt>/}, with its own {@code output/}; see {@link RunFolders}): prepared after
 * the attempt started, written to (receipt file) and reclaimed only after a committed terminal write or
 * recovery. Never follows a symbolic link: a symlinked {@code runs/}, assignment folder, attempt folder or
 * {@code output/} is refused ({@code symlinked_workspace}) and reclaim deletes links, not what they point
 * at. The data directory and every folder created under it are {@code 0700}, receipt files {@code 0600}
 * (decision 0801). Thread-safe (stateless apart from the root).
 *
 * <p>Reclaim after the commit of attempt C: the folders of every other attempt of the assignment are
 * removed, best effort (a stale process may still be writing into its own folder: a failure is reported,
 * never fatal), under both policies. Inside C's folder, {@code temporary} keeps only {@code output/};
 * {@code persistent} keeps everything. The receipt files are kept. See
 * docs/decisions/0108-per-attempt-workspaces.md.
 */
public final class Workspaces {
    public static final String OUTPUT = RunFolders.OUTPUT;
    public static final String RECEIPT_SUFFIX = RunFolders.RECEIPT_SUFFIX;
    /** Attempt ids start with this; reclaim removes only folders so named (and never C's). */
    private static final String ATTEMPT_PREFIX = "att_";

    private final Path dataDirectory;

    public Workspaces(Path dataDirectory) {
        this.dataDirectory = dataDirectory;
    }

    public Path runsRoot() {
        return dataDirectory.resolve("runs");
    }

    /** {@code <dataDirectory>/runs/<assignment>}; refuses ids that are not plain names. */
    public Path workspace(String assignmentId) {
        Path ws = RunFolders.assignment(dataDirectory, assignmentId);
        if (ws == null) {
            throw Refusal.of(
                            RefusalCategory.INVALID_ARGUMENT,
                            "'" + assignmentId + "' is not an assignment id that names a workspace directory.")
                    .build();
        }
        return ws;
    }

    /** {@code <dataDirectory>/runs/<assignment>/<attempt>}; refuses ids that are not plain names. */
    public Path attemptWorkspace(String assignmentId, String attemptId) {
        Path ws = RunFolders.attempt(workspace(assignmentId), attemptId);
        if (ws == null) {
            throw Refusal.of(
                            RefusalCategory.INVALID_ARGUMENT,
                            "'" + attemptId + "' is not an attempt id that names a workspace directory.")
                    .build();
        }
        return ws;
    }

    /**
     * Creates (or reuses) {@code runs/<assignment>/<attempt>/output/} and returns the attempt's workspace
     * {@code runs/<assignment>/<attempt>/}.
     *
     * @throws Refusal {@code symlinked_workspace} when {@code runs/}, the assignment's or the attempt's
     *     folder or {@code output/} is a symbolic link; {@code workspace_not_directory} when one of them
     *     exists as something other than a directory
     * @throws UncheckedIOException when a directory cannot be created
     */
    public Path prepare(String assignmentId, String attemptId) {
        Path ws = workspace(assignmentId);
        Path attempt = attemptWorkspace(assignmentId, attemptId);
        try {
            // One lstat per folder (it says link, directory, something else or absent): a run creates
            // three folders, and each file-system call counts on a busy disk (docs/benchmarks.md).
            for (Path dir : new Path[] {runsRoot(), ws, attempt, attempt.resolve(OUTPUT)}) {
                if (requirePlainDirectoryOrAbsent(assignmentId, dir)) {
                    continue;
                }
                if (dir.equals(runsRoot())) {
                    OwnerOnly.createDirectories(dataDirectory);
                }
                try {
                    OwnerOnly.createDirectory(dir);
                } catch (FileAlreadyExistsException raced) {
                    // another run (or process) created it meanwhile: fine if it is a plain directory
                    requirePlainDirectoryOrAbsent(assignmentId, dir);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare the workspace " + attempt + ": " + e.getMessage(), e);
        }
        return attempt;
    }

    /**
     * True when {@code dir} is a plain directory, false when it does not exist or cannot be examined (like
     * {@code Files.exists}: creating it then says why, e.g. a file where the data directory should be);
     * refuses a link or anything else. One {@code lstat}.
     */
    private static boolean requirePlainDirectoryOrAbsent(String assignmentId, Path dir) {
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(dir, BasicFileAttributes.class, NOFOLLOW_LINKS);
        } catch (IOException absentOrUnreadable) {
            return false;
        }
        if (attributes.isSymbolicLink()) {
            throw Refusal.of(
                            RefusalCategory.SYMLINKED_WORKSPACE,
                            "The workspace path " + dir + " of assignment "
                                    + assignmentId
                                    + " is a symbolic link; the engine never works through one. Remove the link"
                                    + " and retry the assignment.")
                    .resource("assignment", assignmentId)
                    .build();
        }
        if (!attributes.isDirectory()) {
            throw Refusal.of(
                            RefusalCategory.WORKSPACE_NOT_DIRECTORY,
                            "The workspace path " + dir
                                    + " of assignment " + assignmentId
                                    + " exists but is not a directory. Move it away and retry"
                                    + " the assignment.")
                    .resource("assignment", assignmentId)
                    .build();
        }
        return true;
    }

    /**
     * Whether {@code ws} (an assignment's or an attempt's workspace) exists as a real directory that may be
     * written and reclaimed: neither it nor any folder between it and {@code runs/} is a link.
     */
    public boolean isPlainDirectory(Path ws) {
        if (!Files.isDirectory(ws, NOFOLLOW_LINKS)) {
            return false;
        }
        Path root = runsRoot();
        for (Path p = ws; p != null && p.startsWith(root); p = p.getParent()) {
            if (Files.isSymbolicLink(p)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Writes {@code <workspace>/<attempt>.receipt.json} atomically, naming the attempt's output folder
     * ({@code output_dir}). Call only after the commit.
     */
    public Path writeReceipt(Path ws, Assignment assignment, Receipt r) throws IOException {
        Path file = ws.resolve(r.attemptId() + RECEIPT_SUFFIX);
        String json = Json.object()
                        .put("receipt", r.id())
                        .put("assignment", r.assignmentId())
                        .put("actor", assignment.actorId())
                        .put("state", assignment.state().name())
                        .put("attempt", r.attemptId())
                        .put("attempt_token", r.attemptToken())
                        .put("process", r.processIdentity())
                        .put("status", r.status().code())
                        .put("failure_category", r.failureCategory())
                        .put("outcome_known", r.outcomeKnown())
                        .put("summary", r.summary())
                        .put("output_dir", String.valueOf(RunFolders.output(ws, r.attemptId())))
                        .put("created_at", r.createdAt())
                        .toString()
                + "\n";
        Path tmp = ws.resolve("." + r.attemptId() + RECEIPT_SUFFIX + ".tmp");
        OwnerOnly.writeString(tmp, json);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return file;
    }

    /**
     * Reclaims the assignment's workspace {@code ws} after the committed terminal write or recovery of
     * {@code committedAttemptId}: removes the folders of the assignment's other attempts (superseded,
     * stolen or refused ones: none of them can ever commit now), and by policy inside the committed
     * attempt's folder ({@code temporary} keeps only {@code output/}, {@code persistent} everything).
     * Receipt files and entries that are neither attempt folders nor scratch of a {@code temporary}
     * workspace are kept. Symbolic links are removed as links, never followed.
     *
     * <p>Best effort: every entry is tried; a stale process may still be writing into its own folder
     * (fencing governs the ledger, not the operating system), so a failure to remove it is collected and
     * thrown at the end as one {@link IOException}, which the caller reports as a warning.
     */
    public void reclaim(Path ws, String committedAttemptId, String policy) throws IOException {
        if (!isPlainDirectory(ws)) {
            return;
        }
        boolean temporary = "temporary".equals(policy);
        List<String> problems = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(ws)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                boolean receipt = name.endsWith(RECEIPT_SUFFIX) && Files.isRegularFile(entry, NOFOLLOW_LINKS);
                boolean committed = name.equals(committedAttemptId) && Files.isDirectory(entry, NOFOLLOW_LINKS);
                boolean otherAttempt = !committed && name.startsWith(ATTEMPT_PREFIX) && RunFolders.isPlainName(name);
                try {
                    if (committed && temporary) {
                        keepOnlyOutput(entry);
                    } else if (otherAttempt || (temporary && !receipt && !committed)) {
                        deleteTree(entry);
                    }
                } catch (IOException e) {
                    problems.add(entry + ": " + e);
                }
            }
        }
        if (!problems.isEmpty()) {
            throw new IOException("could not remove " + problems.size() + " entr" + (problems.size() == 1 ? "y" : "ies")
                    + " (best effort; the ledger is canonical): " + String.join("; ", problems));
        }
    }

    /**
     * Removes a pruned run's whole workspace ({@code runs/<assignment>/}) when its policy is {@code temporary}
     * (decision 0020); a {@code persistent} workspace is the user's and stays. Never follows a link: a linked
     * workspace is left alone. Whether a folder was removed; a failure is thrown, for the caller to warn about.
     */
    public boolean removePruned(String assignmentId, String policy) throws IOException {
        if (!"temporary".equals(policy)) {
            return false;
        }
        Path ws = RunFolders.assignment(dataDirectory, assignmentId);
        if (ws == null || !isPlainDirectory(ws)) {
            return false;
        }
        deleteTree(ws);
        return true;
    }

    private static void keepOnlyOutput(Path attemptWorkspace) throws IOException {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(attemptWorkspace)) {
            for (Path entry : entries) {
                boolean output =
                        entry.getFileName().toString().equals(OUTPUT) && Files.isDirectory(entry, NOFOLLOW_LINKS);
                if (!output) {
                    deleteTree(entry);
                }
            }
        }
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.isDirectory(root, NOFOLLOW_LINKS)) {
            Files.deleteIfExists(root);
            return;
        }
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.deleteIfExists(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                if (e instanceof NoSuchFileException) {
                    return FileVisitResult.CONTINUE; // removed meanwhile (by its writer, or a racing reclaim)
                }
                throw e;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                if (e != null) {
                    throw e;
                }
                Files.deleteIfExists(dir);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
