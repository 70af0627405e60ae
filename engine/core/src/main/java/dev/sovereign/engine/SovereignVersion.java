package dev.sovereign.engine;

import dev.sovereign.engine.spi.Backends;
import dev.sovereign.engine.spi.StorageBackend;
import java.io.IOException;
import java.io.InputStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/**
 * Which Sovereign this is: the version from the build and the Git commit it was built from, both
 * captured at build time into a resource of this jar ({@code sovereign-build.properties}, filtered by
 * Maven; the commit comes from git-commit-id-maven-plugin). A build from a tree with no {@code .git}
 * says {@code unknown} for the commit; a build with uncommitted changes marks the commit
 * {@code -modified}. One known gap: in a linked worktree ({@code git worktree add}) the plugin reads
 * the main checkout's HEAD, not the worktree's; a clone (CI, users, the package) is stamped right.
 *
 * <p>Read once, immutable, thread-safe.
 */
public final class SovereignVersion {
    /** What {@link #commit()} says when the build had no Git commit to record. */
    public static final String UNKNOWN = "unknown";

    private static final SovereignVersion CURRENT = load();

    private final String version;
    private final String commit;

    private SovereignVersion(String version, String commit) {
        this.version = version;
        this.commit = commit;
    }

    /** This build's version and commit. */
    public static SovereignVersion current() {
        return CURRENT;
    }

    /** The version, e.g. {@code 0.1.0-SNAPSHOT}; {@code unknown} if the build resource is missing. */
    public String version() {
        return version;
    }

    /** The abbreviated Git commit, with {@code -modified} for a dirty tree, or {@code unknown}. */
    public String commit() {
        return commit;
    }

    /**
     * The latest schema version of each storage backend on the class path (name to version, in
     * class-path order): for SQLite, its latest migration. Asked of the backends through the storage
     * port, so the core names none of them.
     */
    public static Map<String, Integer> schemaVersions() {
        Map<String, Integer> out = new LinkedHashMap<>();
        for (StorageBackend b : Backends.all()) {
            out.put(b.name(), b.schemaVersion());
        }
        return out;
    }

    @Override
    public String toString() {
        return version + " (commit " + commit + ")";
    }

    private static SovereignVersion load() {
        Properties p = new Properties();
        try (InputStream in = SovereignVersion.class.getResourceAsStream("sovereign-build.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            // fall through: unknown
        }
        String version = resolved(p.getProperty("version"));
        String commit = resolved(p.getProperty("commit"));
        if (!commit.equals(UNKNOWN) && "true".equals(p.getProperty("dirty"))) {
            commit = commit + "-modified";
        }
        return new SovereignVersion(version, commit);
    }

    /** A property the build did not fill in stays {@code ${...}}: that, or nothing, is unknown. */
    private static String resolved(String value) {
        return value == null || value.isBlank() || value.contains("${") ? UNKNOWN : value.strip();
    }
}
