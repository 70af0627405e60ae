package dev.sovereign.console.feature.processes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.admin.AdminSnapshot;
import dev.sovereign.engine.admin.AttemptRow;
import dev.sovereign.engine.admin.ProcessRef;
import dev.sovereign.engine.admin.ProcessRow;
import dev.sovereign.engine.base.LedgerLocation;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Issue 31, the screenshots' pass: the Stop process… question names a running attempt by its own id and the run it
 * belongs to; it called an assignment id "its running attempt".
 */
class StopProcessQuestionTest {
    private static final ProcessRef P = new ProcessRef("proc_a", "worker 7101", 7101L, "vm");

    @Test
    void aRunningAttemptIsNamedAsAnAttemptOfItsRun() {
        AttemptRow active = new AttemptRow(
                "att_1", "asg_1", "operator", P, 5, 4, "ACTIVE", true, 60_000, 1_000, 1_000, 61_000, null);
        AttemptRow ended = new AttemptRow(
                "att_0", "asg_0", "operator", P, 3, 2, "DONE", false, 60_000, 1_000, 1_000, 61_000, 2_000L);
        AdminSnapshot s = new AdminSnapshot(
                LedgerLocation.file(Path.of("x.db")),
                4,
                1,
                1_000,
                0,
                7,
                List.of(),
                List.of(),
                List.of(),
                List.of(active, ended),
                List.of(),
                Optional.empty());
        ProcessRow row = new ProcessRow(P, "worker", 0, 1_000, 1_000, null, 0, 1, null);

        assertThat(StopProcessAction.question(row, s))
                .contains("Its running attempt (att_1 of run asg_1) is recovered by the supervisor as worker_lost")
                .doesNotContain("att_0");
    }
}
