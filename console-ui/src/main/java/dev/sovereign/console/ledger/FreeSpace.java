package dev.sovereign.console.ledger;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How much room is left for a ledger file to grow: the usable space of the file system that holds it, in bytes. The
 * console asks it for a SQLite ledger only (a server's disk is not visible to a client). A small interface so a test
 * can simulate a nearly full disk without filling one; {@link #FILE_SYSTEM} is the real one. Called on the poller's
 * thread, never on the FX thread.
 */
@FunctionalInterface
public interface FreeSpace {
    /** The bytes this process may still write on the file system holding {@code file}. */
    long usableBytes(Path file) throws IOException;

    /** The real one: {@link java.nio.file.FileStore#getUsableSpace()} of the file's store. */
    FreeSpace FILE_SYSTEM = file -> Files.getFileStore(file).getUsableSpace();
}
