package dev.sovereign.engine.base;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;

/**
 * Creates the files and folders Sovereign makes on a workstation so that only their owner can read
 * them: files {@code 0600}, folders {@code 0700} (docs/decisions/0801-owner-only-files.md). The ledger
 * holds command lines, outputs and who did what; a shared machine's other users have no business there.
 *
 * <p>The mode is given when the file or folder is <em>created</em> (never a {@code chmod} afterwards, which
 * would leave a moment in which another user could open it and keep the descriptor). The process umask
 * can only take bits away. What already exists is left as it is. On a file system without POSIX
 * permissions (Windows) the plain call is made. Stateless and thread-safe.
 */
public final class OwnerOnly {
    public static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-------");
    public static final Set<PosixFilePermission> FOLDER = PosixFilePermissions.fromString("rwx------");

    private OwnerOnly() {}

    /** Whether {@code path}'s file system has POSIX permissions. */
    public static boolean posix(Path path) {
        return path.getFileSystem().supportedFileAttributeViews().contains("posix");
    }

    /** Creates {@code dir} and its missing parents, each created one {@code 0700}; existing ones are untouched. */
    public static Path createDirectories(Path dir) throws IOException {
        return posix(dir)
                ? Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(FOLDER))
                : Files.createDirectories(dir);
    }

    /** Creates the folder {@code dir}, {@code 0700}; fails like {@link Files#createDirectory} if it exists. */
    public static Path createDirectory(Path dir) throws IOException {
        return posix(dir)
                ? Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(FOLDER))
                : Files.createDirectory(dir);
    }

    /** Creates the empty file {@code file}, {@code 0600}; {@link FileAlreadyExistsException} if it exists. */
    public static Path createFile(Path file) throws IOException {
        return Files.createFile(file, attributes(file, FILE));
    }

    /** A new temporary file in {@code dir}, {@code 0600}. */
    public static Path createTempFile(Path dir, String prefix, String suffix) throws IOException {
        return Files.createTempFile(dir, prefix, suffix, attributes(dir, FILE));
    }

    /** Writes {@code text} (UTF-8) to {@code file}: created {@code 0600} if missing, truncated if not. */
    public static void writeString(Path file, String text) throws IOException {
        try (SeekableByteChannel ch = Files.newByteChannel(
                file,
                EnumSet.of(StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE),
                attributes(file, FILE))) {
            ByteBuffer bytes = ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
            while (bytes.hasRemaining()) {
                ch.write(bytes);
            }
        }
    }

    /**
     * Appends {@code line} and a line break (UTF-8) to {@code file}, created {@code 0600} if missing, and forces it to
     * the disk before returning: a record that must survive a crash right after it.
     */
    public static void appendDurably(Path file, String line) throws IOException {
        try (FileChannel ch = FileChannel.open(
                file,
                EnumSet.of(StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE),
                attributes(file, FILE))) {
            ByteBuffer bytes = ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8));
            while (bytes.hasRemaining()) {
                ch.write(bytes);
            }
            ch.force(true);
        }
    }

    private static FileAttribute<?>[] attributes(Path path, Set<PosixFilePermission> mode) {
        return posix(path)
                ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(mode)}
                : new FileAttribute<?>[0];
    }
}
