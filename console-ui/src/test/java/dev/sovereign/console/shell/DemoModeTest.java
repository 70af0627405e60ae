package dev.sovereign.console.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.ConsoleApp;
import dev.sovereign.console.fx.FxUiExecutor;
import dev.sovereign.console.testing.ConsoleFixture;
import dev.sovereign.console.testing.LayoutChecks;
import dev.sovereign.engine.Ledgers;
import dev.sovereign.engine.admin.AdminReader;
import dev.sovereign.engine.admin.AdminSnapshot;
import dev.sovereign.engine.admin.LeaseRow;
import dev.sovereign.engine.admin.ProcessRow;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.lab.Demo;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.prefs.Preferences;
import java.util.stream.Stream;
import javafx.application.Application;
import javafx.scene.Scene;
import javafx.scene.control.Label;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.api.FxToolkit;
import org.testfx.util.WaitForAsyncUtils;

/**
 * The demo as a newcomer gets it: the console started with no file runs real {@code sovereign worker}
 * JVMs (children of this JVM) on a fresh database, their leases show up live, and closing the console
 * — or stopping the demo — leaves no process behind.
 */
class DemoModeTest {
    private static final int WAIT_S = 60;

    @RegisterExtension
    final ConsoleFixture fx = new ConsoleFixture();

    @TempDir
    Path demoFolder;

    private final String prefsNode = "dev/sovereign/console-test/" + UUID.randomUUID();
    private Application app;

    @AfterEach
    void stop() throws Exception {
        if (app != null) {
            FxToolkit.cleanupApplication(app);
        }
        System.clearProperty(ConsoleApp.PREFERENCES_PROPERTY);
        System.clearProperty(DemoSession.FOLDER_PROPERTY);
        Preferences.userRoot().node(prefsNode).removeNode();
    }

    /** This JVM's children running a worker on {@code database} (the lab's WorkerMain): the demo's processes, found from outside. */
    private static List<ProcessHandle> workersOn(Path database) {
        return ProcessHandle.current()
                .children()
                .filter(ProcessHandle::isAlive)
                .filter(p -> {
                    List<String> args = argumentsOf(p);
                    return args.stream().anyMatch(a -> a.endsWith(".WorkerMain")) && args.contains(database.toString());
                })
                .toList();
    }

    /**
     * A child's arguments, from {@code /proc/PID/cmdline} where there is one: {@code ProcessHandle.Info.arguments()}
     * comes back empty for a command line as long as a test class path with the PostgreSQL backend on it.
     */
    private static List<String> argumentsOf(ProcessHandle p) {
        Path cmdline = Path.of("/proc", Long.toString(p.pid()), "cmdline");
        try {
            if (Files.isReadable(cmdline)) {
                return List.of(new String(Files.readAllBytes(cmdline), StandardCharsets.UTF_8).split("\0"));
            }
        } catch (IOException gone) {
            return List.of(); // ended while being looked at
        }
        return p.info().arguments().map(List::of).orElse(List.of());
    }

    private static void await(String what, Callable<Boolean> condition) throws Exception {
        try {
            WaitForAsyncUtils.waitFor(WAIT_S, TimeUnit.SECONDS, condition);
        } catch (TimeoutException e) {
            throw new AssertionError("waited " + WAIT_S + " s for " + what, e);
        }
    }

    private static Callable<Boolean> onFx(Callable<Boolean> condition) {
        return () -> WaitForAsyncUtils.asyncFx(condition).get();
    }

    private Path theDemoDatabase() throws Exception {
        await("a demo database", () -> demoDatabases().size() == 1);
        return demoDatabases().get(0);
    }

    private List<Path> demoDatabases() throws IOException {
        try (Stream<Path> files = Files.list(demoFolder)) {
            return files.filter(p -> p.getFileName().toString().matches("demo-.*\\.db"))
                    .toList();
        }
    }

    private static Set<Long> pids(List<ProcessHandle> handles) {
        Set<Long> pids = new HashSet<>();
        handles.forEach(h -> pids.add(h.pid()));
        return pids;
    }

    @Test
    void withNoFileTheConsoleRunsADemoOfRealWorkersAndClosingItLeavesNoProcessBehind() throws Exception {
        System.setProperty(ConsoleApp.PREFERENCES_PROPERTY, prefsNode);
        System.setProperty(DemoSession.FOLDER_PROPERTY, demoFolder.toString());
        FxToolkit.registerPrimaryStage();

        app = FxToolkit.setupApplication(ConsoleApp.class);

        Path db = theDemoDatabase();
        await("five worker processes", () -> workersOn(db).size() == 5);
        Set<Long> started = pids(workersOn(db));
        assertThat(started)
                .allSatisfy(pid -> assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive))
                        .contains(true));
        FxRobot robot = new FxRobot();
        await(
                "the demo attached",
                onFx(() -> robot.lookup("#demo-strip").query().isVisible()
                        && "Connected"
                                .equals(robot.lookup("#status-health")
                                        .queryAs(Label.class)
                                        .getText())));
        for (String actor : Demo.ACTORS) {
            await(
                    actor + " hosted, live in the leases view",
                    onFx(() -> robot.lookup("#state-" + actor)
                            .tryQuery()
                            .map(n -> "live".equals(((Label) n).getText()))
                            .orElse(false)));
        }
        try (AdminReader reader = Ledgers.openReader(db, Clock.systemUTC(), ZoneId.systemDefault())) {
            await("every lease held by a demo worker and a tick by this console's supervisor", () -> {
                AdminSnapshot s = reader.snapshot();
                Set<Long> holders = new HashSet<>();
                s.leases().stream()
                        .filter(l -> !l.isFree())
                        .map(LeaseRow::holder)
                        .forEach(h -> holders.add(h.pid()));
                boolean consoleTicked = s.lastTick()
                        .map(t -> s.processes().stream()
                                .filter(p -> p.process()
                                        .identity()
                                        .equals(t.process().identity()))
                                .map(ProcessRow::kind)
                                .anyMatch("console"::equals))
                        .orElse(false);
                return s.leases().stream().noneMatch(LeaseRow::isFree) && started.containsAll(holders) && consoleTicked;
            });
        }
        started.addAll(pids(workersOn(db))); // any the demo restarted meanwhile

        FxToolkit.cleanupApplication(app); // what closing the window does: Application.stop()
        app = null;

        assertThat(started)
                .allSatisfy(pid -> assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive))
                        .as("worker pid %d", pid)
                        .isEmpty());
        assertThat(workersOn(db)).isEmpty();
    }

    @Test
    void theWelcomePageStartsADemoAndStopDemoEndsItsProcesses() throws Exception {
        FxRobot robot = new FxRobot();
        Demo.Settings[] used = new Demo.Settings[1];
        ShellViewModel[] vm = new ShellViewModel[1];
        Stage primary = FxToolkit.registerPrimaryStage();
        FxToolkit.setupStage(stage -> showWindow(stage, vm, used));
        assertThat(robot.lookup("#welcome-demo").tryQuery()).isPresent();

        robot.clickOn("#welcome-demo");

        Path db = theDemoDatabase();
        await("five worker processes", () -> workersOn(db).size() == 5);
        Set<Long> started = pids(workersOn(db));
        await("the demo strip", onFx(() -> robot.lookup("#demo-strip").query().isVisible()));
        // issue 31: in a 1024-px window (and narrower) the DEMO tag and "Stop demo" keep their words; the
        // narration beside them is what gives way
        List<String> cut = new ArrayList<>();
        for (int width : new int[] {1024, 760}) {
            robot.interact(() -> {
                primary.setWidth(width);
                primary.setHeight(700);
            });
            WaitForAsyncUtils.waitForFxEvents();
            robot.interact(
                    () -> LayoutChecks.truncated(robot.lookup("#demo-strip").query(), cut, width + ": "));
        }
        robot.interact(() -> {
            primary.setWidth(1320);
            primary.setHeight(820);
        });
        assertThat(cut).as("the demo strip at 1024 and 760 px").allMatch(c -> c.contains("#demo-narration"));
        assertThat(WaitForAsyncUtils.asyncFx(
                                () -> vm[0].attachment().recentFiles().contains(LedgerLocation.file(db)))
                        .get())
                .as("a demo is not a recent file")
                .isFalse();
        assertThat(WaitForAsyncUtils.asyncFx(() -> vm[0].demoSession().demo().startedPids())
                        .get())
                .containsAll(started);
        assertThat(WaitForAsyncUtils.asyncFx(() -> ((atlantafx.base.controls.Message)
                                        robot.lookup("#banner").query())
                                .getTitle())
                        .get())
                .isEqualTo("Demo running");

        robot.clickOn("#demo-stop");
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(robot.lookup("#banner").tryQuery())
                .as("the demo's notice goes with the demo")
                .isEmpty();
        assertThat(vm[0].bannerProperty().get()).isNull();

        await(
                "every worker gone",
                () -> started.stream()
                        .noneMatch(pid -> ProcessHandle.of(pid)
                                .map(ProcessHandle::isAlive)
                                .orElse(false)));
        await(
                "the welcome page again",
                onFx(() -> robot.lookup("#welcome").tryQuery().isPresent()
                        && !robot.lookup("#demo-strip").query().isVisible()));
        WaitForAsyncUtils.waitForAsyncFx(30_000, vm[0]::close);
        assertThat(used[0].chaosEvery()).isNull();
    }

    private void showWindow(Stage stage, ShellViewModel[] vm, Demo.Settings[] used) {
        vm[0] = new ShellViewModel(
                fx.settings(),
                new FxUiExecutor(),
                Clock.systemUTC(),
                ZoneId.systemDefault(),
                Ledgers::openReader,
                Duration.ofMillis(100),
                database -> Ledgers.openOperatorActions(database),
                () -> {
                    used[0] = Demo.Settings.defaults(Demo.newDatabase(demoFolder, Clock.systemUTC()))
                            .withoutChaos();
                    return Demo.start(used[0]);
                });
        MainWindow window = new MainWindow(vm[0], () -> {});
        Scene scene = new Scene(window.create(), 1200, 760);
        window.install(scene);
        stage.setScene(scene);
        stage.show();
    }
}
