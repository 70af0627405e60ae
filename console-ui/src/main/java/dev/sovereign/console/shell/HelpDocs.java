package dev.sovereign.console.shell;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Where the Help menu's documents are: the system property {@value #HOME_PROPERTY}'s {@code docs/} (the launcher's),
 * or, walking up from the console's own jar or classes, a {@code docs/} folder ({@code console-ui/target/…} in a
 * clone) or the desktop package's {@value #PACKAGED} ({@code /opt/sovereign/share/doc/sovereign} beside
 * {@code /opt/sovereign/lib/app/sovereign-console.jar}; packaging/linux/build-dist.sh puts the docs there). Without
 * one the Help items say "(docs not installed)". Immutable.
 */
public record HelpDocs(Path folder) {
    public static final String HOME_PROPERTY = "sovereign.home";

    /** Where the desktop package keeps the docs, under its root (the app image, {@code /opt/sovereign}). */
    public static final String PACKAGED = "share/doc/sovereign";

    /** The documents the Help menu links to: title and file name. */
    public static final List<String[]> DOCUMENTS = List.of(
            new String[] {"Console guide", "console.md"},
            new String[] {"Concepts: leases, tokens and fences", "concepts.md"},
            new String[] {"Command-line reference", "cli.md"},
            new String[] {"What happens when a process dies", "what-happens-when-a-process-dies.md"});

    /** The docs folder of this installation, if there is one. */
    public static Optional<HelpDocs> find() {
        Path code = null;
        try {
            code = Path.of(HelpDocs.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI());
        } catch (URISyntaxException | RuntimeException e) {
            // no code source to walk up from: only the home property can name the docs
        }
        return find(System.getProperty(HOME_PROPERTY), code);
    }

    /**
     * The docs folder for a console whose launcher named {@code home} (null: none) and whose code is at
     * {@code code} (its jar or classes folder; null: unknown): a folder with the console guide in it.
     */
    static Optional<HelpDocs> find(String home, Path code) {
        if (home != null && Files.isRegularFile(Path.of(home, "docs", "console.md"))) {
            return Optional.of(new HelpDocs(Path.of(home, "docs")));
        }
        for (Path p = code; p != null; p = p.getParent()) {
            for (Path docs : List.of(p.resolve("docs"), p.resolve(PACKAGED))) {
                if (Files.isRegularFile(docs.resolve("console.md"))) {
                    return Optional.of(new HelpDocs(docs));
                }
            }
            if (code.getNameCount() - p.getNameCount() >= 3) {
                break; // the jar, lib/app, lib, the package's root: no further (a clone's target/classes is as deep)
            }
        }
        return Optional.empty();
    }

    /** The {@code file:} address of one document. */
    public String address(String fileName) {
        return folder.resolve(fileName).toUri().toString();
    }

    /**
     * Prints the folder this installation's Help menu opens, or says there is none and exits 1: how
     * packaging/linux/test-dist.sh checks, with the package's own runtime and jar, that the packaged console's Help
     * items are enabled.
     */
    public static void main(String[] args) {
        Optional<HelpDocs> docs = find();
        if (docs.isEmpty()) {
            System.out.println("no docs: the Help items say (docs not installed)");
            System.exit(1);
        }
        for (String[] doc : DOCUMENTS) {
            if (!Files.isRegularFile(docs.get().folder().resolve(doc[1]))) {
                System.out.println("missing: " + docs.get().folder().resolve(doc[1]));
                System.exit(1);
            }
        }
        System.out.println(docs.get().folder());
    }
}
