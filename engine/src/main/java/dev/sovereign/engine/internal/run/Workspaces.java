package dev.sovereign.engine.internal.run;

import static java.nio.file.LinkOption.NOFOLLOW_LINKS;

import dev.sovereign.engine.Refusal;
import dev.sovereign.engine.RefusalCategory;
import dev.sovereign.engine.internal.Json;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.Receipt;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.regex.Pattern;

/**
 * Run workspaces under {@code <dataDirectory>/runs/<assignment>/}: prepared after the attempt
 * started, written to (receipt file) and reclaimed only after a committed terminal write or
 * recovery. Never follows a symbolic link: a symlinked root is refused ({@code symlinked_workspace})
 * and reclaim deletes links, not what they point at. Thread-safe (stateless apart from the root).
 *
 * <p>Layout: {@code output/} (the provider's results; kept by every policy), {@code <attempt>.receipt.json}
 * (one per committed attempt; kept), anything else (scratch; removed by {@code temporary}).
 */
public final class Workspaces {
    public static final String OUTPUT = "output";
    public static final String RECEIPT_SUFFIX = ".receipt.json";
    private static final Pattern SAFE_ID = Pattern.compile("[A-Za-z0-9_-]{1,100}");

    private final Path dataDirectory;

    public Workspaces(Path dataDirectory) {
        this.dataDirectory = dataDirectory;
    }

    public Path runsRoot() {
        return dataDirectory.resolve("runs");
    }

    /** {@code <dataDirectory>/runs/<assignment>}; refuses ids that are not plain names. */
    public Path workspace(String assignmentId) {
        if (assignmentId == null || !SAFE_ID.matcher(assignmentId).matches()) {
            throw Refusal.of(RefusalCategory.INVALID_ARGUMENT, "'" + assignmentId
                    + "' is not an assignment id that names a workspace directory.").build();
        }
        return runsRoot().resolve(assignmentId);
    }

    /**
     * Creates (or reuses) the workspace and its output directory.
     *
     * @throws Refusal {@code symlinked_workspace} when {@code runs/}, the workspace or {@code output/}
     *     is a symbolic link; {@code workspace_not_directory} when one of them exists as something other
     *     than a directory
     * @throws UncheckedIOException when a directory cannot be created
     */
    public Path prepare(String assignmentId) {
        Path ws = workspace(assignmentId);
        try {
            Files.createDirectories(dataDirectory);
            for (Path dir : new Path[] {runsRoot(), ws, ws.resolve(OUTPUT)}) {
                requirePlainDirectoryOrAbsent(assignmentId, dir);
                if (!Files.exists(dir, NOFOLLOW_LINKS)) {
                    try {
                        Files.createDirectory(dir);
                    } catch (FileAlreadyExistsException raced) {
                        // another run (or process) created it meanwhile: fine if it is a plain directory
                        requirePlainDirectoryOrAbsent(assignmentId, dir);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare the workspace " + ws + ": " + e.getMessage(), e);
        }
        return ws;
    }

    private static void requirePlainDirectoryOrAbsent(String assignmentId, Path dir) {
        if (Files.isSymbolicLink(dir)) {
            throw Refusal.of(RefusalCategory.SYMLINKED_WORKSPACE, "The workspace path " + dir + " of assignment "
                    + assignmentId + " is a symbolic link; the engine never works through one. Remove the link"
                    + " and retry the assignment.").resource("assignment", assignmentId).build();
        }
        if (Files.exists(dir, NOFOLLOW_LINKS) && !Files.isDirectory(dir, NOFOLLOW_LINKS)) {
            throw Refusal.of(RefusalCategory.WORKSPACE_NOT_DIRECTORY, "The workspace path " + dir
                    + " of assignment " + assignmentId + " exists but is not a directory. Move it away and retry"
                    + " the assignment.").resource("assignment", assignmentId).build();
        }
    }

    /** Whether the workspace exists as a real directory (not a link) that may be written and reclaimed. */
    public boolean isPlainDirectory(Path ws) {
        return Files.isDirectory(ws, NOFOLLOW_LINKS) && !Files.isSymbolicLink(ws)
                && !Files.isSymbolicLink(ws.getParent());
    }

    /** Writes {@code <workspace>/<attempt>.receipt.json} atomically. Call only after the commit. */
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
                .put("created_at", r.createdAt())
                .toString() + "\n";
        Path tmp = ws.resolve("." + r.attemptId() + RECEIPT_SUFFIX + ".tmp");
        Files.writeString(tmp, json);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return file;
    }

    /**
     * Reclaims the workspace by policy, only after a committed terminal write or recovery:
     * {@code temporary} removes everything but {@code output/} and the receipt files; {@code persistent}
     * keeps everything. Symbolic links inside are removed as links, never followed.
     */
    public void reclaim(Path ws, String policy) throws IOException {
        if (!"temporary".equals(policy) || !isPlainDirectory(ws)) {
            return;
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(ws)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                boolean keep = (name.equals(OUTPUT) && Files.isDirectory(entry, NOFOLLOW_LINKS))
                        || (name.endsWith(RECEIPT_SUFFIX) && Files.isRegularFile(entry, NOFOLLOW_LINKS));
                if (!keep) {
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
