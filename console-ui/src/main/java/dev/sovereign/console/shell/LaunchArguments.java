package dev.sovereign.console.shell;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** The console's command line: {@code --db PATH}, {@code --db=PATH} or a bare PATH. */
public final class LaunchArguments {
    private LaunchArguments() {
    }

    /** The database to attach at start, if the command line names one. */
    public static Optional<Path> database(List<String> args) {
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.equals("--db") && i + 1 < args.size()) {
                return Optional.of(Path.of(args.get(i + 1)));
            }
            if (a.startsWith("--db=")) {
                return Optional.of(Path.of(a.substring("--db=".length())));
            }
        }
        return args.stream().filter(a -> !a.startsWith("-")).findFirst().map(Path::of);
    }
}
