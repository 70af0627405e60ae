package dev.sovereign.engine.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Review of 1cf3ec0: the package move left {@code {@link}}s in the core's javadoc that no longer resolve
 * (javac -Xdoclint:reference): StorageBackend's {@code AdminReader#open(Path, Clock, ZoneId)} (removed; it is
 * {@code Ledgers.openReader} now), Engine's {@code StorageException} and EngineConfig's {@code Engine} (both
 * now in another package and not imported).
 */
class CoreJavadocLinksTest {
    @Test
    void everyLinkInTheCoresJavadocResolves(@TempDir Path out) throws Exception {
        Path core = Path.of("..", "core", "src", "main", "java");
        List<String> sources;
        try (Stream<Path> s = Files.walk(core)) {
            sources = s.filter(p -> p.toString().endsWith(".java"))
                    .map(Path::toString)
                    .toList();
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
        List<String> args = new ArrayList<>(List.of("-Xdoclint:reference", "-proc:none", "-d", out.toString()));
        args.addAll(sources);
        int rc = javac.run(null, null, diagnostics, args.toArray(String[]::new));
        assertThat(diagnostics.toString())
                .as("javac -Xdoclint:reference over engine/core")
                .doesNotContain("error:");
        assertThat(rc).isZero();
    }
}
