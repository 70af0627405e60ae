package dev.sovereign.console.fx;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.admin.EventSentences;
import dev.sovereign.engine.admin.ProcessRef;
import java.util.List;
import javafx.scene.Scene;
import javafx.scene.control.Hyperlink;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

/**
 * Issue 31, item 11: a process's label is not turned into actor links; CLI holders are told apart; sentences
 * never capitalise ids such as proc_bob.
 */
@ExtendWith(ApplicationExtension.class)
class ProcessLabelsTest {
    private LinkedSentence sentence;

    @Start
    void start(Stage stage) {
        sentence = new LinkedSentence("s");
        stage.setScene(new Scene(sentence, 600, 100));
        stage.show();
    }

    @Test
    void anActorNameInsideAProcessLabelIsNotALink(FxRobot robot) {
        robot.interact(() -> {
            sentence.setActors(List.of("operator"));
            sentence.setText("Actor operator is hosted by operator worker 1 (restart 1) (proc_3f2a1b9c\u2026) with"
                    + " token 3; operator waits.");
        });
        List<String> links = sentence.getChildren().stream()
                .filter(n -> n instanceof Hyperlink)
                .map(n -> ((Hyperlink) n).getText())
                .toList();
        assertThat(links).containsExactly("operator", "proc_3f2a1b9c\u2026", "operator");
        assertThat(LinkedSentence.insideProcessLabel("by operator worker 1 (restart 1) (proc_a)", 3, 11))
                .isTrue();
    }

    @Test
    void cliHoldersAreToldApartAndIdsKeepTheirCase() {
        ProcessRef alice = new ProcessRef("proc_alice", "sovereign lease acquire", 1L, "h");
        ProcessRef dave = new ProcessRef("proc_dave", "sovereign lease acquire", 2L, "h");
        assertThat(alice.name()).isNotEqualTo(dave.name()).contains("proc_alice");
        assertThat(new ProcessRef("proc_w", "worker 7", 3L, "h").name()).isEqualTo("worker 7");
        assertThat(EventSentences.capitalised("proc_bob asked for actor operator."))
                .startsWith("proc_bob asked");
        assertThat(EventSentences.capitalised("worker 7 (proc_w) asked.")).startsWith("Worker 7");
    }
}
