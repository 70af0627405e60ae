package dev.sovereign.console.shell;

import dev.sovereign.engine.base.LedgerLocation;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The console's command line: {@code --db PATH}, {@code --db=PATH} or a bare PATH; with none, the
 * console opens its demo, unless {@code --no-demo}.
 */
public final class LaunchArguments {
    private LaunchArguments() {}

    /** The database to attach at start, if the command line names one. */
    public static Optional<Path> database(List<String> args) {
        return named(args).filter(n -> !LedgerLocation.looksLikeUrl(n)).map(Path::of);
    }

    /** True when no database is named and {@code --no-demo} is absent: the console opens its demo. */
    public static boolean wantsDemo(List<String> args) {
        return named(args).isEmpty() && !args.contains("--no-demo");
    }

    /**
     * The ledger to attach at start: {@code --db} (or a bare argument) — a file path or a {@code jdbc:} URL —
     * else {@code sovereignDb} (the value of {@code $SOVEREIGN_DB}, where the launcher hands a server's URL so
     * that its password never stands on a command line other users can list). Empty when neither names one.
     *
     * @throws IllegalArgumentException with one sentence (no secret) when what is named is not usable
     */
    public static Optional<LedgerLocation> location(List<String> args, String sovereignDb) {
        Optional<String> named = named(args);
        if (named.isEmpty() && sovereignDb != null && !sovereignDb.isBlank()) {
            named = Optional.of(sovereignDb);
        }
        return named.map(LedgerLocation::parse);
    }

    /** As {@link #wantsDemo(List)}, counting {@code $SOVEREIGN_DB} as a named ledger. */
    public static boolean wantsDemo(List<String> args, String sovereignDb) {
        return (sovereignDb == null || sovereignDb.isBlank()) && wantsDemo(args);
    }

    private static Optional<String> named(List<String> args) {
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.equals("--db") && i + 1 < args.size()) {
                return Optional.of(args.get(i + 1));
            }
            if (a.startsWith("--db=")) {
                return Optional.of(a.substring("--db=".length()));
            }
        }
        return args.stream().filter(a -> !a.startsWith("-")).findFirst();
    }
}
