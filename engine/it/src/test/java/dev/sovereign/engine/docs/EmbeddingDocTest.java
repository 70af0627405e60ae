package dev.sovereign.engine.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.testing.ChildJvm;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * What docs/embedding.md says about jars, versions and module names is what the build makes: the driver versions of
 * the root pom, the project's version, the driver's one run-time dependency, every module's JPMS name and the core's
 * exported packages, and the sentence the engine says without a driver. A version bump or a new module that the page
 * does not follow fails here.
 */
class EmbeddingDocTest {
    private static final Path ROOT = Path.of("../..");
    private static final Path DOC = ROOT.resolve("docs/embedding.md");

    @Test
    void theJarsTheClassPathListNamesAreTheVersionsTheBuildUses() throws Exception {
        String doc = Files.readString(DOC);
        String pom = Files.readString(ROOT.resolve("pom.xml"));
        String version = element(pom, "version");

        assertThat(doc)
                .contains("<version>" + version + "</version>")
                .contains("dev.sovereign:sovereign-engine-core:" + version)
                .contains("sovereign-engine-core-" + version + ".jar")
                .contains("sovereign-engine-jdbc-" + version + ".jar")
                .contains("sovereign-engine-sqlite-" + version + ".jar")
                .contains("sovereign-engine-postgres-" + version + ".jar")
                .contains("sqlite-jdbc-" + element(pom, "sqlite-jdbc.version") + ".jar")
                .contains("postgresql-" + element(pom, "postgresql.version") + ".jar")
                // the PostgreSQL driver's one run-time dependency, as Maven resolved it for these tests
                .contains(jarOnTestClassPath("checker-qual-"));
    }

    @Test
    void everyModuleIsListedWithItsJpmsName() throws Exception {
        String doc = Files.readString(DOC);
        List<Path> moduleFiles;
        try (Stream<Path> files = Files.walk(ROOT.resolve("engine"), 5)) {
            moduleFiles = files.filter(f -> f.endsWith(Path.of("src/main/java/module-info.java")))
                    .sorted()
                    .toList();
        }
        assertThat(moduleFiles).hasSizeGreaterThanOrEqualTo(6);
        for (Path moduleFile : moduleFiles) {
            String module = match(Files.readString(moduleFile), "(?m)^module\\s+([\\w.]+)");
            Path modulePom =
                    moduleFile.getParent().getParent().getParent().getParent().resolve("pom.xml");
            String artifact = match(
                    Files.readString(modulePom).replaceFirst("(?s)<parent>.*?</parent>", ""),
                    "<artifactId>([^<]+)</artifactId>");
            assertThat(doc).as(moduleFile.toString()).contains("| `" + artifact + "` | `" + module + "` |");
        }
    }

    @Test
    void theCoresRowNamesEveryPackageItExportsToEveryone() throws Exception {
        String doc = Files.readString(DOC);
        String coreRow = doc.lines()
                .filter(l -> l.startsWith("| `sovereign-engine-core` |"))
                .findFirst()
                .orElseThrow();
        Matcher exports = Pattern.compile("(?m)^\\s*exports\\s+([\\w.]+);")
                .matcher(Files.readString(ROOT.resolve("engine/core/src/main/java/module-info.java")));
        List<String> packages = new ArrayList<>();
        while (exports.find()) {
            packages.add(exports.group(1));
        }
        assertThat(packages).contains("dev.sovereign.engine", "dev.sovereign.engine.lease");
        for (String p : packages) {
            String shown = p.equals("dev.sovereign.engine") ? p : p.substring("dev.sovereign.engine.".length());
            assertThat(coreRow).as(p).contains("`" + shown + "`");
        }
    }

    @Test
    void theDriverSentenceIsTheEnginesOwn() throws Exception {
        assertThat(Files.readString(DOC)).contains(DriverMissingTest.sqliteSentence("/srv/agent/ledger.db"));
    }

    private static String element(String pom, String name) {
        return match(pom.replaceFirst("(?s)<parent>.*?</parent>", ""), "<" + Pattern.quote(name) + ">([^<]+)</");
    }

    private static String match(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        assertThat(m.find()).as(regex).isTrue();
        return m.group(1);
    }

    private static String jarOnTestClassPath(String prefix) throws IOException {
        return Arrays.stream(ChildJvm.classpath().split(File.pathSeparator))
                .map(e -> Path.of(e).getFileName().toString())
                .filter(n -> n.startsWith(prefix) && n.endsWith(".jar"))
                .findFirst()
                .orElseThrow(() -> new IOException("no " + prefix + "*.jar on the test class path"));
    }
}
