package dev.sovereign.engine.base;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Where a ledger lives, as a user named it: a SQLite file path (the embedded default) or a server's JDBC
 * URL ({@code jdbc:postgresql://host:port/db?...}). A backend is chosen by it (SPEC 15). A path is made
 * absolute and normalized; a URL is kept verbatim for the driver, and is never printed as typed:
 * {@link #toString()} hides every password and token in it (user-info passwords and {@code password},
 * {@code sslpassword} or {@code *token*} parameters), so a secret never reaches a status line, a title, a
 * sentence or a log. Immutable.
 */
public final class LedgerLocation {
    private static final Pattern USERINFO_PASSWORD = Pattern.compile("(//[^/@:?#]*:)[^/@?#]*@");
    private static final Pattern SECRET_PARAMETER =
            Pattern.compile("(?i)([?&;](?:[a-z]*password|[a-z]*token|[a-z]*secret)=)[^&;#]*");

    private final String text;
    private final Path file;

    private LedgerLocation(String text, Path file) {
        this.text = text;
        this.file = file;
    }

    /** A SQLite file (or one of another file-based backend), made absolute and normalized. */
    public static LedgerLocation file(Path file) {
        Path p = Objects.requireNonNull(file, "file").toAbsolutePath().normalize();
        return new LedgerLocation(p.toString(), p);
    }

    /**
     * What a user typed: a {@code jdbc:} URL is a server; anything else is a file path.
     *
     * @throws IllegalArgumentException with one sentence when it is empty or not a usable path
     */
    public static LedgerLocation parse(String typed) {
        if (typed == null || typed.isBlank()) {
            throw new IllegalArgumentException("A database must be a file path or a jdbc: URL, got nothing.");
        }
        if (typed.regionMatches(true, 0, "jdbc:", 0, 5)) {
            return new LedgerLocation(typed, null);
        }
        try {
            return file(Path.of(typed));
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException("'" + typed + "' is neither a usable file path nor a jdbc: URL ("
                    + e.getReason() + ").", e);
        }
    }

    /** Whether this is a file (SQLite) rather than a server URL. */
    public boolean isFile() {
        return file != null;
    }

    /** The file, for a file-based ledger. */
    public Optional<Path> file() {
        return Optional.ofNullable(file);
    }

    /**
     * The location as a backend needs it: the absolute path, or the URL exactly as typed (secrets
     * included: hand it to the driver, never to a user).
     */
    public String text() {
        return text;
    }

    /** The location with every secret replaced by {@code ***}: the only form ever shown or logged. */
    @Override
    public String toString() {
        return file != null ? text : redact(text);
    }

    /** {@code text} with user-info passwords and password/token/secret parameters replaced by {@code ***}. */
    public static String redact(String text) {
        if (text == null) {
            return null;
        }
        String out = USERINFO_PASSWORD.matcher(text).replaceAll("$1***@");
        return SECRET_PARAMETER.matcher(out).replaceAll("$1***");
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LedgerLocation other && text.equals(other.text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }
}
