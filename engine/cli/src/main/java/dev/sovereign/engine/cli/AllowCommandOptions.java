package dev.sovereign.engine.cli;

import dev.sovereign.engine.base.CommandAllowList;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * {@code --allow-command PATTERN} (repeatable) and {@code --allow-commands-from FILE}: the
 * {@code command:} specs a worker or {@code sovereign run} may execute. Without them it runs none
 * (docs/decisions/0800). A picocli mixin, so the two commands that run providers share one definition.
 * Not thread-safe (one instance per command line).
 */
final class AllowCommandOptions {
    @Option(
            names = "--allow-command",
            paramLabel = "PATTERN",
            description = "Run command: assignments whose command matches PATTERN (repeatable). * and ? never"
                    + " match ; & | < > ( ) $ ` \\ or a line break; everything else is literal. Without it no"
                    + " command: assignment runs here (command_not_allowed).")
    List<String> patterns = new ArrayList<>();

    @Option(
            names = "--allow-commands-from",
            paramLabel = "FILE",
            description = "Read more --allow-command patterns from FILE, one per line (blank lines and lines"
                    + " starting with # are ignored).")
    Path file;

    /** The allow-list these options describe; a bad pattern or an unreadable file is bad input (exit 2). */
    CommandAllowList allowList() {
        List<String> all = new ArrayList<>(patterns);
        if (file != null) {
            try {
                for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                    if (!line.isBlank() && !line.stripLeading().startsWith("#")) {
                        all.add(line);
                    }
                }
            } catch (IOException | RuntimeException e) {
                throw CliFailure.badInput("Cannot read the command patterns in " + file + ": " + e.getMessage());
            }
        }
        try {
            return CommandAllowList.of(all);
        } catch (IllegalArgumentException e) {
            throw CliFailure.badInput("Invalid --allow-command pattern: " + e.getMessage());
        }
    }
}
