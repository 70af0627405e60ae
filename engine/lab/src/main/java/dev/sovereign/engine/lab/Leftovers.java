package dev.sovereign.engine.lab;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.UserPrincipal;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * What the console's demo and the lab leave on disk, kept bounded (issue 29 item 5, docs/operations.md): each new demo
 * or sandbox first removes the older ones beyond the newest few, and never one that was written to in the last minutes
 * (another console's demo, a scenario still running). A ledger goes whole: its file, SQLite's side files and its
 * {@code .data} folder, unlinked without following a symbolic link. Stateless; static methods only.
 */
public final class Leftovers {
    /** A ledger written to this recently is in use by someone: it stays, however many there are. */
    public static final Duration IN_USE = Duration.ofMinutes(10);

    private Leftovers() {}

    /**
     * Deletes the ledgers in {@code folder} that {@code ours} recognises by name, except the {@code keep} newest (by
     * name, which is their creation time) and any written to within {@link #IN_USE} of {@code clock}'s now.
     *
     * @return the ledger files deleted, oldest first
     */
    public static List<Path> keepNewest(Path folder, Predicate<Path> ours, int keep, Clock clock) throws IOException {
        if (!Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS)) {
            return List.of();
        }
        List<Path> ledgers;
        try (Stream<Path> files = Files.list(folder)) {
            ledgers = files.filter(ours)
                    .filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS))
                    .sorted(Comparator.comparing(Path::toString))
                    .toList();
        }
        List<Path> deleted = new ArrayList<>();
        long inUseSince = clock.millis() - IN_USE.toMillis();
        for (Path ledger : ledgers.subList(0, Math.max(0, ledgers.size() - keep))) {
            if (lastWritten(ledger) >= inUseSince) {
                continue;
            }
            deleteLedger(ledger);
            deleted.add(ledger);
        }
        return deleted;
    }

    /** The later of the ledger file's and its write-ahead log's modification times (epoch ms). */
    static long lastWritten(Path ledger) throws IOException {
        long at = Files.getLastModifiedTime(ledger, LinkOption.NOFOLLOW_LINKS).toMillis();
        Path wal = ledger.resolveSibling(ledger.getFileName() + "-wal");
        if (Files.exists(wal, LinkOption.NOFOLLOW_LINKS)) {
            FileTime t = Files.getLastModifiedTime(wal, LinkOption.NOFOLLOW_LINKS);
            at = Math.max(at, t.toMillis());
        }
        return at;
    }

    /**
     * Deletes a SQLite ledger whole: the file, its {@code -wal}, {@code -shm} and {@code -journal} side files and its
     * {@code <name>.data} folder (run folders, workspaces). Only unlinks: never opens the database, never follows a
     * symbolic link (a link is removed, not what it points to). Call it only when no process uses the ledger.
     */
    public static void deleteLedger(Path file) throws IOException {
        String name = file.getFileName().toString();
        Path dir = file.toAbsolutePath().getParent();
        Path data = dir.resolve((name.endsWith(".db") ? name.substring(0, name.length() - 3) : name) + ".data");
        if (Files.isDirectory(data, LinkOption.NOFOLLOW_LINKS)) {
            try (Stream<Path> s = Files.walk(data)) { // walk does not follow links: a link inside is removed itself
                for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        } else {
            Files.deleteIfExists(data); // a link named like the folder: the link goes, its target stays
        }
        for (String suffix : List.of("-wal", "-shm", "-journal", "")) {
            Files.deleteIfExists(dir.resolve(name + suffix));
        }
    }

    /**
     * Refuses a shared folder (a lab's folder under the temporary directory everyone may write) that is not this
     * user's alone: a symbolic link, a folder another user owns, or one others may write to. Someone who made it
     * first could otherwise read or replace the ledgers put in it. Does nothing where permissions are not POSIX.
     *
     * @throws IOException naming the folder and what is wrong with it
     */
    public static void requireOwnFolder(Path folder) throws IOException {
        if (Files.isSymbolicLink(folder)) {
            throw new IOException(folder + " is a symbolic link, not a folder of yours; remove it or choose another"
                    + " folder (-Dsovereign.lab.dir)");
        }
        if (!Files.getFileStore(folder).supportsFileAttributeView("posix")) {
            return;
        }
        UserPrincipal owner = Files.getOwner(folder, LinkOption.NOFOLLOW_LINKS);
        UserPrincipal me = folder.getFileSystem()
                .getUserPrincipalLookupService()
                .lookupPrincipalByName(System.getProperty("user.name"));
        if (!owner.equals(me)) {
            throw new IOException(folder + " belongs to " + owner.getName() + ", not to you; remove it or choose"
                    + " another folder (-Dsovereign.lab.dir)");
        }
        Set<PosixFilePermission> perms = Files.getPosixFilePermissions(folder, LinkOption.NOFOLLOW_LINKS);
        Set<PosixFilePermission> others = EnumSet.of(PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_WRITE);
        others.retainAll(perms);
        if (!others.isEmpty()) {
            throw new IOException(folder + " may be written by others (" + others + "); make it yours alone"
                    + " (chmod 700) or choose another folder (-Dsovereign.lab.dir)");
        }
    }
}
