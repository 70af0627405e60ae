package dev.sovereign.console.feature;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.feature.trends.TrendsView;
import dev.sovereign.console.feature.trends.TrendsViewModel;
import dev.sovereign.console.shell.Page;
import dev.sovereign.console.shell.ShellViewModel;
import dev.sovereign.console.testing.ConsoleFixture;
import dev.sovereign.console.testing.Scenario;
import dev.sovereign.console.testing.ViewHarness;
import dev.sovereign.engine.base.Refusal;
import java.time.Duration;
import java.util.List;
import javafx.scene.chart.LineChart;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

/** Issue 17, item 9: the last hour a minute at a time, from the journal the console holds. */
@ExtendWith(ApplicationExtension.class)
class TrendsTest {
    @RegisterExtension
    final ConsoleFixture fx = new ConsoleFixture();

    private ShellViewModel vm;

    @Start
    void start(Stage stage) {
        Scenario.build(fx);
        vm = fx.attachedShell();
        vm.pageProperty().set(Page.TRENDS);
        ViewHarness.show(stage, new TrendsView(vm.trends(), vm.formats()).create());
    }

    @Test
    void eachMinuteCountsGrantsTakeoversRefusalsAndLostRunsAsTheJournalHasThem(FxRobot robot) {
        List<TrendsViewModel.Minute> minutes = vm.trends().minutesProperty().get();
        assertThat(minutes).hasSize(TrendsViewModel.MINUTES);
        assertThat(minutes.get(59).start())
                .isLessThanOrEqualTo(vm.ledger().now())
                .isGreaterThan(vm.ledger().now() - 60_000);

        long grants = vm.ledger().events().stream()
                .filter(e -> e.kind().equals("LEASE_ACQUIRED") || e.kind().equals("LEASE_TAKEN_OVER"))
                .count();
        long takeovers = vm.ledger().events().stream()
                .filter(e -> e.kind().equals("LEASE_TAKEN_OVER"))
                .count();
        assertThat(grants).isGreaterThan(3);
        assertThat(minutes.stream().mapToInt(TrendsViewModel.Minute::grants).sum())
                .isEqualTo((int) grants);
        assertThat(minutes.stream().mapToInt(TrendsViewModel.Minute::takeovers).sum())
                .isEqualTo((int) takeovers);
        assertThat(minutes.stream().mapToInt(TrendsViewModel.Minute::recovered).sum())
                .isEqualTo(1);
        assertThat(minutes.stream()
                        .mapToInt(TrendsViewModel.Minute::rejectionsTotal)
                        .sum())
                .isEqualTo(3);
        assertThat(minutes.stream()
                        .flatMap(m -> m.rejections().keySet().stream())
                        .distinct())
                .containsExactlyInAnyOrder("actor_lease_lost", "actor_lease_held");
        // the quiet minutes before the scenario are zeros, not gaps
        assertThat(minutes.get(0).grants()).isZero();

        @SuppressWarnings("unchecked")
        LineChart<String, Number> chart = robot.lookup("#trends-grants").queryAs(LineChart.class);
        assertThat(chart.getData()).extracting(s -> s.getName()).containsExactly("grants", "takeovers");
        assertThat(chart.getData().get(0).getData()).hasSize(60);
        assertThat(chart.getData().get(0).getData().stream()
                        .mapToLong(d -> d.getYValue().longValue())
                        .sum())
                .isEqualTo(grants);
        assertThat(robot.lookup("#trends-rejections").queryAs(LineChart.class).getData())
                .hasSize(2);
    }

    @Test
    void aNewRefusalShowsInTheCurrentMinuteAtTheNextRecount(FxRobot robot) {
        int before = vm.trends().minutesProperty().get().get(59).rejectionsTotal();
        try {
            fx.engine("worker 7199").leases().acquire("operator", Duration.ofSeconds(5));
        } catch (Refusal expected) {
            // held by worker B: journalled as refused
        }
        robot.interact(vm::pollNow);
        robot.interact(() -> vm.tick(fx.clock.millis() + 1_500));

        assertThat(vm.trends().minutesProperty().get().get(59).rejectionsTotal())
                .isEqualTo(before + 1);
    }
}
