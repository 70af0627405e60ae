package dev.sovereign.console.shell;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 31 item 22: the packaged console's Help items were all disabled "(docs not installed)". The package keeps the
 * docs under its root in {@value HelpDocs#PACKAGED} (packaging/linux/build-dist.sh), its console jar in
 * {@code lib/app/}; from that jar the Help menu finds them. A clone's {@code docs/} is still found from
 * {@code console-ui/target/classes}; a console elsewhere has none. (test-dist.sh asks the real package the same.)
 */
class HelpDocsTest {
    @TempDir
    Path root;

    private static void write(Path file) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, "# " + file.getFileName());
    }

    @Test
    void thePackagesDocsAreFoundFromItsConsoleJar() throws IOException {
        Path app = root.resolve("opt/sovereign");
        Path jar = app.resolve("lib/app/sovereign-console.jar");
        write(jar);
        assertThat(HelpDocs.find(null, jar)).as("before the docs are shipped").isEmpty();
        for (String[] doc : HelpDocs.DOCUMENTS) {
            write(app.resolve(HelpDocs.PACKAGED).resolve(doc[1]));
        }
        assertThat(HelpDocs.find(null, jar)).contains(new HelpDocs(app.resolve(HelpDocs.PACKAGED)));
        assertThat(HelpDocs.find(null, jar).orElseThrow().address("cli.md"))
                .isEqualTo(app.resolve("share/doc/sovereign/cli.md").toUri().toString());
    }

    @Test
    void aClonesDocsAreFoundFromItsClassesAndNothingFurtherUp() throws IOException {
        Path clone = root.resolve("work/sovereign");
        Path classes = clone.resolve("console-ui/target/classes");
        Files.createDirectories(classes);
        write(clone.resolve("docs/console.md"));
        assertThat(HelpDocs.find(null, classes)).contains(new HelpDocs(clone.resolve("docs")));

        Path deeper = clone.resolve("a/b/c/d/console.jar");
        write(deeper);
        assertThat(HelpDocs.find(null, deeper)).as("four levels up at most").isEmpty();
        assertThat(HelpDocs.find(clone.toString(), deeper)).contains(new HelpDocs(clone.resolve("docs")));
    }
}
