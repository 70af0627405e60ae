package dev.sovereign.engine.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.run.RunFolders;
import dev.sovereign.engine.testing.TempDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * docs/embedding.md quotes {@link EmbeddingExample} and {@link LeaseAndReceiptExample} verbatim, and the examples
 * really run.
 */
class EmbeddingExampleTest {
    private static final Path SOURCE = Path.of("src/test/java/dev/sovereign/engine/docs/EmbeddingExample.java");
    private static final Path LEASE_SOURCE =
            Path.of("src/test/java/dev/sovereign/engine/docs/LeaseAndReceiptExample.java");
    private static final Path DOC = Path.of("../../docs/embedding.md");

    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    @Test
    void theExampleRunsItsAssignmentToCompletion() throws Exception {
        String outcome = EmbeddingExample.runOnce(temp.file());
        assertThat(outcome).isEqualTo("COMPLETED: summarised quarterly-report");
        Engine look = temp.open(Clock.systemUTC());
        String id = look.runs().list().get(0).id();
        Path output = RunFolders.output(
                look.runs().workspace(id), look.runs().receipt(id).orElseThrow().attemptId());
        assertThat(Files.readString(output.resolve("summary.txt"))).isEqualTo("summary of quarterly-report\n");
    }

    @Test
    void theExampleReportsAnActorHostedElsewhereAsNotRun() {
        Engine other = temp.open(Clock.systemUTC());
        other.actors().add("summariser");
        other.leases().acquire("summariser", Duration.ofSeconds(30));
        assertThat(EmbeddingExample.runOnce(temp.file()))
                .startsWith("not run, try later: Actor summariser is hosted by");
    }

    @Test
    void theDocQuotesTheExampleVerbatim() throws Exception {
        String source = Files.readString(SOURCE);
        String doc = Files.readString(DOC);
        assertThat(doc).contains("```java\n" + source + "```");
    }

    @Test
    void theLeaseExampleHostsAndReleasesOrSaysTheHoldersToken() {
        Engine engine = temp.open(Clock.systemUTC());
        engine.actors().add("reporter");
        assertThat(LeaseAndReceiptExample.hostOnce(engine)).startsWith("hosted with token ");
        assertThat(engine.leases().current("reporter")).as("released").isEmpty();

        Lease elsewhere = temp.open(Clock.systemUTC()).leases().acquire("reporter", Duration.ofSeconds(30));
        assertThat(LeaseAndReceiptExample.hostOnce(engine))
                .isEqualTo("hosted elsewhere with token " + elsewhere.token());
    }

    @Test
    void theReceiptExampleReadsHowARunEnded() {
        Engine engine = temp.open(Clock.systemUTC());
        engine.actors().add("reporter");
        String id = engine.runs()
                .assign("reporter", "scripted:ms=1,outcome=blocked")
                .id();
        assertThat(LeaseAndReceiptExample.outcome(engine, id)).isEqualTo("no receipt yet, the assignment is CREATED");

        engine.runs().runAssignment(id);

        assertThat(LeaseAndReceiptExample.outcome(engine, id))
                .matches("blocked( \\(\\S+\\))? by attempt \\S+ with token \\d+");
    }

    @Test
    void theDocQuotesTheLeaseAndReceiptExampleVerbatim() throws Exception {
        assertThat(Files.readString(DOC)).contains("```java\n" + Files.readString(LEASE_SOURCE) + "```");
    }
}
