package dev.sovereign.console.feature.lab;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.lab.WorkerProcess;
import javafx.scene.control.Label;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

/** Where there is no SIGSTOP (or it is switched off), the Lab page says what Pause does instead. */
@ExtendWith(ApplicationExtension.class)
class LabPlatformNoteTest {
    private LabConsole console;

    @Start
    void start(Stage stage) throws Exception {
        System.setProperty(WorkerProcess.COOPERATIVE_PAUSE_PROPERTY, "true");
        console = new LabConsole();
        console.show(stage);
    }

    @AfterEach
    void tearDown(FxRobot robot) throws Exception {
        System.clearProperty(WorkerProcess.COOPERATIVE_PAUSE_PROPERTY);
        console.close(robot);
        console.cleanUp();
    }

    @Test
    void withoutStopSignalsThePageExplainsTheCooperativePause(FxRobot robot) {
        console.openSandboxFromTheMenu(robot);
        Label note = robot.lookup("#lab-platform-note").queryAs(Label.class);
        assertThat(note.isVisible()).isTrue();
        assertThat(note.getText())
                .startsWith("This system has no SIGSTOP (or the lab was told not to use it), so Pause is cooperative");
    }
}
