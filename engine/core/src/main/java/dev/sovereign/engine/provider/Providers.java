package dev.sovereign.engine.provider;

import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The provider kinds an engine knows, and the parser from a provider spec ({@code kind:argument})
 * to a {@link Provider}. Built in: {@code scripted} ({@link ScriptedProvider}) and {@code command}
 * ({@link CommandProvider}). Embedders add their own kinds with {@link #register}.
 *
 * <p>Specs are parsed (and so validated) when an assignment is created and again when it runs, each
 * time by the registry of the engine doing it: a kind registered only in a worker is unknown to a
 * CLI call that assigns it. Thread-safe.
 */
public final class Providers {
    private static final Pattern KIND = Pattern.compile("[a-z][a-z0-9_-]{0,39}");
    private static final int MAX_SPEC_LENGTH = 4_000;

    private final Map<String, ProviderFactory> factories = new ConcurrentHashMap<>();

    /** A registry with the built-in kinds {@code scripted} and {@code command}. */
    public static Providers withBuiltIns() {
        Providers p = new Providers();
        p.register(ScriptedProvider.KIND, ScriptedProvider::parse);
        p.register(CommandProvider.KIND, CommandProvider::parse);
        return p;
    }

    /**
     * Registers (or replaces) the factory for {@code kind}: lower-case letters, digits, {@code -}
     * and {@code _}, starting with a letter.
     */
    public void register(String kind, ProviderFactory factory) {
        if (kind == null || !KIND.matcher(kind).matches()) {
            throw new IllegalArgumentException(
                    "a provider kind must be a lower-case word like 'scripted', got '" + kind + "'");
        }
        factories.put(kind, Objects.requireNonNull(factory, "factory"));
    }

    public Set<String> kinds() {
        return new TreeSet<>(factories.keySet());
    }

    /**
     * The provider a spec names.
     *
     * @throws Refusal {@code unknown_provider} for a blank, over-long or malformed spec, an unknown
     *     kind, or an argument the kind rejects
     */
    public Provider create(String spec) {
        if (spec == null || spec.isBlank()) {
            throw unknown(spec, "a provider spec must not be empty");
        }
        if (spec.length() > MAX_SPEC_LENGTH) {
            throw unknown(
                    spec.substring(0, 40) + "...",
                    "a provider spec must be at most " + MAX_SPEC_LENGTH + " characters");
        }
        int colon = spec.indexOf(':');
        String kind = colon < 0 ? spec : spec.substring(0, colon);
        String argument = colon < 0 ? "" : spec.substring(colon + 1);
        ProviderFactory factory = factories.get(kind);
        if (factory == null) {
            throw unknown(spec, "there is no provider kind '" + kind + "' (known: " + String.join(", ", kinds()) + ")");
        }
        try {
            return factory.create(argument);
        } catch (IllegalArgumentException e) {
            throw unknown(spec, e.getMessage());
        }
    }

    /** Checks a spec without keeping the provider; same refusals as {@link #create}. */
    public void validate(String spec) {
        create(spec);
    }

    private static Refusal unknown(String spec, String why) {
        return Refusal.of(
                        RefusalCategory.UNKNOWN_PROVIDER,
                        "Cannot use provider spec '" + spec + "': " + why
                                + "; use e.g. 'scripted:ms=2000,outcome=completed' or 'command:<shell command>'.")
                .build();
    }
}
