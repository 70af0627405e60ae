package dev.sovereign.engine.base;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Which {@code command:} specs a process may run. A spec comes from the ledger, and anyone who can
 * insert an assignment could otherwise run code on every worker host: so a process runs a command only
 * when it matches one of the patterns it was started with, and the default is <em>no command at all</em>
 * ({@link #none()}). See docs/decisions/0800-commands-run-only-when-allowed.md.
 *
 * <p>A pattern is matched against the whole command text (what follows {@code command:}, exactly as
 * stored). Every character matches itself, except:
 * <ul>
 *   <li>{@code *} matches any run of characters, possibly empty, and {@code ?} exactly one character —
 *       but <strong>never</strong> one of the shell's control or expansion characters
 *       {@code ; & | < > ( ) $ ` \} or a line break. So {@code ./nightly.sh *} allows
 *       {@code ./nightly.sh --full} but not {@code ./nightly.sh; rm -rf ~} nor
 *       {@code ./nightly.sh $(curl ...)}. A command that needs those characters is allowed only by a
 *       pattern that spells them out literally.</li>
 *   <li>{@code \} makes the next character literal ({@code \*}, {@code \?}, {@code \\}).</li>
 * </ul>
 * Immutable and thread-safe.
 */
public final class CommandAllowList {
    /** The characters a wildcard never matches: what lets a shell run a second command or expand one. */
    public static final String SHELL_CONTROL_CHARACTERS = ";&|<>()$`\\\n\r";

    private static final String WILDCARD_CHAR = "[^;&|<>()$`\\\\\\n\\r]";
    private static final int MAX_PATTERN_LENGTH = 4_000;
    private static final CommandAllowList NONE = new CommandAllowList(List.of(), List.of());

    private final List<String> patterns;
    private final List<Pattern> compiled;

    private CommandAllowList(List<String> patterns, List<Pattern> compiled) {
        this.patterns = patterns;
        this.compiled = compiled;
    }

    /** Allows no command: the default of every engine, worker and {@code sovereign run}. */
    public static CommandAllowList none() {
        return NONE;
    }

    /**
     * Allows the commands matching any of {@code patterns} (see the class comment).
     *
     * @throws IllegalArgumentException naming the first blank, over-long or malformed pattern
     */
    public static CommandAllowList of(Collection<String> patterns) {
        List<String> kept = new ArrayList<>();
        List<Pattern> compiled = new ArrayList<>();
        for (String p : patterns) {
            compiled.add(compile(p));
            kept.add(p);
        }
        return kept.isEmpty() ? NONE : new CommandAllowList(List.copyOf(kept), List.copyOf(compiled));
    }

    public static CommandAllowList of(String... patterns) {
        return of(List.of(patterns));
    }

    /** The pattern that matches exactly {@code command} and nothing else ({@code * ? \} escaped). */
    public static String exactly(String command) {
        StringBuilder b = new StringBuilder(command.length() + 8);
        for (char c : command.toCharArray()) {
            if (c == '*' || c == '?' || c == '\\') {
                b.append('\\');
            }
            b.append(c);
        }
        return b.toString();
    }

    /** Whether {@code command} (the text after {@code command:}) matches one of the patterns. */
    public boolean allows(String command) {
        if (command == null) {
            return false;
        }
        for (Pattern p : compiled) {
            if (p.matcher(command).matches()) {
                return true;
            }
        }
        return false;
    }

    /** The patterns as given, in order. */
    public List<String> patterns() {
        return patterns;
    }

    public boolean isEmpty() {
        return patterns.isEmpty();
    }

    @Override
    public String toString() {
        return patterns.isEmpty() ? "no command allowed" : "commands allowed by " + patterns;
    }

    private static Pattern compile(String pattern) {
        if (pattern == null || pattern.isBlank()) {
            throw new IllegalArgumentException("a command pattern must not be empty");
        }
        if (pattern.length() > MAX_PATTERN_LENGTH) {
            throw new IllegalArgumentException(
                    "a command pattern must be at most " + MAX_PATTERN_LENGTH + " characters");
        }
        StringBuilder regex = new StringBuilder();
        for (int i = 0; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            if (c == '\\') {
                if (i + 1 == pattern.length()) {
                    throw new IllegalArgumentException("the command pattern '" + pattern
                            + "' ends with a lone \\; write \\\\ for a literal backslash");
                }
                regex.append(Pattern.quote(String.valueOf(pattern.charAt(++i))));
            } else if (c == '*') {
                regex.append(WILDCARD_CHAR).append('*');
            } else if (c == '?') {
                regex.append(WILDCARD_CHAR);
            } else {
                regex.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return Pattern.compile(regex.toString(), Pattern.DOTALL);
    }
}
