package dev.sovereign.engine.base;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where a ledger lives, as a user named it: a SQLite file path (the embedded default) or a server's JDBC
 * URL ({@code jdbc:postgresql://host:port/db?...}). A backend is chosen by it (contract §15). A path is made
 * absolute and normalized; a URL is kept verbatim for the driver, and is never printed as typed:
 * {@link #toString()} hides every password and token in it (user-info passwords and {@code password},
 * {@code sslpassword} or {@code *token*} parameters), so a secret never reaches a status line, a title, a
 * sentence or a log. Immutable.
 */
public final class LedgerLocation {
    /**
     * A parameter whose name mentions a password, token, secret or key (any case, any other letters, digits,
     * {@code _} or {@code -} around it). Its value runs to the next {@code &} or the end: the PostgreSQL driver
     * splits parameters on {@code &} only, so a {@code ;} or {@code #} belongs to the value.
     */
    private static final Pattern SECRET_PARAMETER =
            Pattern.compile("(?i)([?&;][a-z0-9_.-]*(?:password|passwd|pwd|token|secret|key)[a-z0-9_.-]*=)[^&]*");
    /** A URL anywhere in a sentence: a {@code jdbc:} URL, or any {@code scheme://}, up to whitespace or a quote. */
    private static final Pattern URL_IN_TEXT =
            Pattern.compile("(?i)(?:jdbc:[a-z0-9]+:|\\b[a-z][a-z0-9+.-]*://)[^\\s'\"]*");
    /** A URL as a whole: {@code scheme://…} (PostgreSQL's own form) or {@code jdbc:…}. */
    private static final Pattern LOOKS_LIKE_URL = Pattern.compile("(?i)^(?:jdbc:|[a-z][a-z0-9+.-]*://).*");

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
        String t = typed.strip(); // a pasted $SOVEREIGN_DB may carry blanks
        if (t.regionMatches(true, 0, "jdbc:", 0, 5)) {
            return new LedgerLocation(t, null);
        }
        if (LOOKS_LIKE_URL.matcher(t).matches()) {
            throw new IllegalArgumentException("'" + redact(t) + "' is a URL but not a jdbc: URL; name a server as"
                    + " jdbc:postgresql://host:port/database (the password in PGPASSFILE or a password= parameter).");
        }
        try {
            return file(Path.of(typed));
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException(
                    "'" + typed + "' is neither a usable file path nor a jdbc: URL (" + e.getReason() + ").", e);
        }
    }

    /** Whether {@code typed} names a server (a URL of any kind) rather than a file path. */
    public static boolean looksLikeUrl(String typed) {
        return typed != null && LOOKS_LIKE_URL.matcher(typed.strip()).matches();
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

    /**
     * {@code url} with its user-info password and every password/token/secret/key parameter replaced by
     * {@code ***}. The user-info is everything between {@code //} and the LAST {@code @} before the query (a
     * host has no {@code @}; a password may hold {@code /} or {@code @}); its password is what follows its first
     * {@code :}.
     */
    public static String redact(String url) {
        if (url == null) {
            return null;
        }
        String out = url;
        int start = out.indexOf("//");
        if (start >= 0) {
            int query = out.indexOf('?', start);
            int end = query < 0 ? out.length() : query;
            int at = out.lastIndexOf('@', end - 1);
            if (at > start) {
                int colon = out.indexOf(':', start + 2);
                if (colon >= 0 && colon < at) {
                    out = out.substring(0, colon + 1) + "***" + out.substring(at);
                }
            }
        }
        return SECRET_PARAMETER.matcher(out).replaceAll("$1***");
    }

    /**
     * This location with every secret REMOVED rather than masked: a file as it is; a URL without its user-info
     * password and without its password, token, secret or key parameters. What may be remembered (a recent-files
     * list, settings) and opened again later: the driver then finds the password itself ({@code ~/.pgpass} or
     * {@code PGPASSFILE}).
     */
    public LedgerLocation withoutSecrets() {
        if (file != null) {
            return this;
        }
        String out = redact(text);
        out = out.replaceFirst("(//[^/?@]*?):\\*\\*\\*@", "$1@");
        // a masked parameter goes with its separator; a first one hands its '?' to the next
        out = out.replaceAll("&[^&?=]+=\\*\\*\\*(?=&|$)", "");
        out = out.replaceAll("\\?[^&?=]+=\\*\\*\\*(&|$)", "?");
        out = out.replaceFirst("\\?$", "");
        return new LedgerLocation(out, null);
    }

    /** Whether this location, shown, would hide a secret: {@link #toString()} differs from {@link #text()}. */
    public boolean hasSecrets() {
        return file == null && !redact(text).equals(text);
    }

    /**
     * {@code sentence} with every URL in it {@linkplain #redact redacted}: for messages that may quote what a
     * user typed (a parser's "Unexpected argument '…'"), so no secret in a URL is ever printed back.
     */
    public static String redactUrlsIn(String sentence) {
        if (sentence == null) {
            return null;
        }
        Matcher m = URL_IN_TEXT.matcher(sentence);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            // punctuation that ends the sentence's clause is not part of the URL ("… ledger?password=x: the …")
            String url = m.group();
            int end = url.length();
            while (end > 0 && ".,:;)]}!".indexOf(url.charAt(end - 1)) >= 0) {
                end--;
            }
            m.appendReplacement(out, Matcher.quoteReplacement(redact(url.substring(0, end)) + url.substring(end)));
        }
        m.appendTail(out);
        return out.toString();
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
