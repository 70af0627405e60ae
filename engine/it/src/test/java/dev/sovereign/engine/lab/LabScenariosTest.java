package dev.sovereign.engine.lab;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.testing.TempDatabase;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every scenario, run headlessly against a fresh sandbox with real worker processes, reaches
 * {@code held} from the journal; with the terminal fence switched off in its workers, every scenario
 * that relies on that fence reports {@code violated}.
 */
class LabScenariosTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private LabVerdict run(String scenario, boolean breakFence, List<LabStep> heard) throws InterruptedException {
        LabOptions options = new LabOptions(Lab.createSandbox(temp.dir().resolve("lab")), breakFence);
        LabVerdict v = Lab.prepare(scenario, options, heard::add).run();
        return v;
    }

    private static String explain(LabVerdict v) {
        StringBuilder b = new StringBuilder(v.verdict() + ": " + v.headline() + "\n");
        v.steps()
                .forEach(s -> b.append("  ")
                        .append(s.position())
                        .append(' ')
                        .append(s.status())
                        .append(' ')
                        .append(s.title())
                        .append(" — ")
                        .append(s.detail())
                        .append('\n'));
        v.checks()
                .forEach(c -> b.append("  ")
                        .append(c.passed() ? "ok   " : "FAIL ")
                        .append(c.kind())
                        .append(' ')
                        .append(c.statement())
                        .append(" — ")
                        .append(c.evidence())
                        .append('\n'));
        v.workerOutput().forEach((w, lines) -> {
            b.append("  ").append(w).append(":\n");
            lines.forEach(l -> b.append("    ").append(l).append('\n'));
        });
        return b.toString();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {"two-racers", "gc-pause", "hard-kill", "expired-self-reclaim", "stolen-fence", "clock-skew"})
    void eachScenarioReachesHeldFromTheJournal(String scenario) throws Exception {
        List<LabStep> heard = new CopyOnWriteArrayList<>();
        LabVerdict v = run(scenario, false, heard);
        assertThat(v.verdict()).as(explain(v)).isEqualTo(Verdict.HELD);
        assertThat(v.checks()).allMatch(Check::passed);
        assertThat(v.steps()).allMatch(s -> s.status() == LabStep.Status.DONE);
        // the narrative was told as it happened: each step started, then ended, in order
        assertThat(heard).hasSize(2 * v.steps().size());
        for (int i = 0; i < v.steps().size(); i++) {
            assertThat(heard.get(2 * i).status()).isEqualTo(LabStep.Status.RUNNING);
            assertThat(heard.get(2 * i + 1).status()).isEqualTo(LabStep.Status.DONE);
            assertThat(heard.get(2 * i + 1).index()).isEqualTo(i);
        }
        assertThat(v.actor()).isEqualTo(scenario + "-1");
        v.workerOutput().keySet().forEach(w -> assertThat(w).contains(v.actor()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"gc-pause", "stolen-fence", "clock-skew"})
    void withTheTerminalFenceSwitchedOffInTheWorkersTheScenarioReportsViolated(String scenario) throws Exception {
        LabVerdict v = run(scenario, true, new CopyOnWriteArrayList<>());
        assertThat(v.verdict()).as(explain(v)).isEqualTo(Verdict.VIOLATED);
        assertThat(v.faultInjected()).isTrue();
        assertThat(v.checks()).anyMatch(c -> c.kind() == Check.Kind.SAFETY && !c.passed());
    }

    @Test
    void theCatalogueListsEveryScenarioWithItsNarrative() {
        assertThat(Lab.scenarios())
                .extracting(ScenarioInfo::name)
                .containsExactly(
                        "two-racers", "gc-pause", "hard-kill", "expired-self-reclaim", "stolen-fence", "clock-skew");
        assertThat(Lab.scenarios())
                .allMatch(s -> s.steps().get(s.steps().size() - 1).equals(Scenario.CHECK_STEP));
        assertThat(Lab.scenarios())
                .filteredOn(ScenarioInfo::faultSwitchApplies)
                .extracting(ScenarioInfo::name)
                .containsExactly("gc-pause", "stolen-fence", "clock-skew");
    }
}
