package dev.sovereign.console.shell;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Where the Help menu's documents are: the repository's {@code docs/} folder, found from the system
 * property {@value #HOME_PROPERTY} (the launcher's) or by walking up from the console's own jar or
 * classes ({@code console-ui/target/…} in a clone). Immutable.
 */
public record HelpDocs(Path folder) {
    public static final String HOME_PROPERTY = "sovereign.home";

    /** The documents the Help menu links to: title and file name. */
    public static final List<String[]> DOCUMENTS = List.of(
            new String[] {"Console guide", "console.md"},
            new String[] {"Concepts: leases, tokens and fences", "concepts.md"},
            new String[] {"Command-line reference", "cli.md"},
            new String[] {"What happens when a process dies", "what-happens-when-a-process-dies.md"});

    /** The docs folder of this installation, if there is one. */
    public static Optional<HelpDocs> find() {
        String home = System.getProperty(HOME_PROPERTY);
        if (home != null && Files.isRegularFile(Path.of(home, "docs", "console.md"))) {
            return Optional.of(new HelpDocs(Path.of(home, "docs")));
        }
        try {
            Path p = Path.of(HelpDocs.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI());
            for (int i = 0; i < 4 && p != null; i++, p = p.getParent()) {
                if (Files.isRegularFile(p.resolve("docs").resolve("console.md"))) {
                    return Optional.of(new HelpDocs(p.resolve("docs")));
                }
            }
        } catch (URISyntaxException | RuntimeException e) {
            // no code source to walk up from: no local docs
        }
        return Optional.empty();
    }

    /** The {@code file:} address of one document. */
    public String address(String fileName) {
        return folder.resolve(fileName).toUri().toString();
    }
}
