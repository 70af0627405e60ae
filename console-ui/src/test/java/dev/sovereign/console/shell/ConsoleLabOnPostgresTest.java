package dev.sovereign.console.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.feature.lab.LabViewModel;
import dev.sovereign.console.feature.lab.LabWorkerItem;
import dev.sovereign.console.fx.FxUiExecutor;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.Ledgers;
import dev.sovereign.engine.admin.AdminReader;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.lab.Lab;
import dev.sovereign.engine.lab.LabVerdict;
import dev.sovereign.engine.lab.Verdict;
import dev.sovereign.engine.testing.PgTestServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.prefs.Preferences;
import javafx.collections.ListChangeListener;
import javafx.scene.Node;
import javafx.scene.Parent;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.Labeled;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * The Lab page on a real PostgreSQL server (decision 0426): attached to a lab sandbox on the server (made by
 * {@code Lab.serverSandbox} from an empty database, as {@code sovereign lab --db URL} does), the page runs
 * two-racers there with real worker JVMs to its verdict, and the planted password shows on no worker's command
 * line, on no text of the window and in nothing the console prints. Attached to a real ledger, the page refuses
 * to run there and says how to make a sandbox.
 */
@ExtendWith(ApplicationExtension.class)
class ConsoleLabOnPostgresTest {
    private static final String PLANTED = "planted-Lab-Secret-7";

    private final Clock clock = Clock.systemUTC();
    private final ByteArrayOutputStream printed = new ByteArrayOutputStream();
    private final PrintStream out = System.out;
    private final PrintStream err = System.err;
    private final List<String> workerCommandLines = new CopyOnWriteArrayList<>();
    private Preferences prefs;
    private ShellViewModel vm;
    private Scene scene;

    @Start
    void start(Stage stage) {
        System.setOut(new PrintStream(new Tee(out, printed), true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(new Tee(err, printed), true, StandardCharsets.UTF_8));
        prefs = Preferences.userRoot().node("sovereign-console-lab-pg-test-" + System.nanoTime());
        vm = new ShellViewModel(
                new ConsoleSettings(prefs),
                new FxUiExecutor(),
                clock,
                ZoneOffset.UTC,
                new LedgerOpener() {
                    @Override
                    public AdminReader open(Path database) {
                        return Ledgers.openReader(database, clock, ZoneOffset.UTC);
                    }

                    @Override
                    public AdminReader open(LedgerLocation location, ZoneId zone) {
                        return Ledgers.openReader(location, clock, zone);
                    }
                },
                Duration.ofMillis(100));
        // every worker the page starts: its command line, read from the OS while it lives
        vm.lab().workers().addListener((ListChangeListener<LabWorkerItem>) c -> {
            while (c.next()) {
                for (LabWorkerItem w : c.getAddedSubList()) {
                    workerCommandLines.add(commandLineOf(w.pid()));
                }
            }
        });
        MainWindow window = new MainWindow(vm, () -> {});
        scene = new Scene(window.create(), 1320, 820);
        window.install(scene);
        stage.setScene(scene);
        stage.show();
    }

    @AfterEach
    void tearDown() throws Exception {
        WaitForAsyncUtils.asyncFx(() -> vm.close()).get(60, TimeUnit.SECONDS);
        System.setOut(out);
        System.setErr(err);
        prefs.removeNode();
    }

    private static LedgerLocation withPassword(PgTestServer.Database db) {
        return LedgerLocation.parse(db.url() + "&password=" + PLANTED); // the embedded server trusts local logins
    }

    private static void await(int seconds, Callable<Boolean> onFx) throws Exception {
        WaitForAsyncUtils.waitFor(
                seconds, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(onFx).get());
    }

    @Test
    void onALabSandboxOnTheServerThePageRunsTwoRacersToItsVerdict(FxRobot robot) throws Exception {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        Lab.serverSandbox(LedgerLocation.parse(db.url())); // an empty database made a sandbox, as the CLI does

        robot.interact(() -> vm.attach(withPassword(db)));
        await(30, () -> vm.lab().serverLabProperty().get() == LabViewModel.ServerLab.SANDBOX);
        robot.interact(() -> {
            vm.pageProperty().set(Page.LAB);
            vm.lab()
                    .selectedScenarioProperty()
                    .set(vm.lab().scenarios().stream()
                            .filter(s -> s.name().equals("two-racers"))
                            .findFirst()
                            .orElseThrow());
        });
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(vm.lab().labTargetProperty().get()).isEqualTo(withPassword(db));
        assertThat(robot.lookup("#lab-target-kind").queryLabeled().getText()).isEqualTo("lab sandbox on the server");
        Button run = robot.lookup("#lab-run").queryButton();
        assertThat(run.isDisabled()).isFalse();

        robot.clickOn(run);
        await(
                120,
                () -> !vm.lab().runningProperty().get()
                        && vm.lab().verdictProperty().get() != null);

        LabVerdict verdict = WaitForAsyncUtils.asyncFx(
                        () -> vm.lab().verdictProperty().get())
                .get();
        assertThat(verdict.scenario()).isEqualTo("two-racers");
        assertThat(verdict.verdict()).as(String.valueOf(verdict)).isEqualTo(Verdict.HELD);
        assertThat(workerCommandLines)
                .as("the scenario's workers showed on the page")
                .hasSizeGreaterThanOrEqualTo(2);
        // the workers ran on the server: their processes are in the sandbox's ledger
        try (Engine look = Engine.openExisting(EngineConfig.forDatabase(LedgerLocation.parse(db.url()))
                .heartbeat(false)
                .registerLazily(true)
                .processLabel("test look")
                .build())) {
            assertThat(look.isLabSandbox()).isTrue();
        }
        String summary = WaitForAsyncUtils.asyncFx(
                        () -> vm.lab().summaryProperty().get())
                .get();
        assertThat(summary)
                .contains(db.name())
                .contains("(a lab sandbox on the server)")
                .contains("two-racers: held");

        String shown = WaitForAsyncUtils.asyncFx(() -> {
                    StringBuilder b = new StringBuilder();
                    texts(scene.getRoot(), b);
                    return b.toString();
                })
                .get();
        assertThat(shown).doesNotContain(PLANTED);
        assertThat(workerCommandLines).as("read from the OS, not vacuous").allMatch(l -> l.contains("WorkerMain"));
        assertThat(workerCommandLines).noneMatch(l -> l.contains(PLANTED)).noneMatch(l -> l.contains("jdbc:"));
        assertThat(printed.toString(StandardCharsets.UTF_8)).doesNotContain(PLANTED);
    }

    @Test
    void onARealLedgerThePageRunsNothingAndSaysHowToMakeASandbox(FxRobot robot) throws Exception {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        try (Engine owner =
                Engine.open(EngineConfig.forDatabase(db.url()).heartbeat(false).build())) {
            owner.actors().add("alpha"); // a real ledger
        }

        robot.interact(() -> vm.attach(withPassword(db)));
        await(30, () -> vm.lab().serverLabProperty().get() == LabViewModel.ServerLab.NOT_A_SANDBOX);
        robot.interact(() -> vm.pageProperty().set(Page.LAB));
        WaitForAsyncUtils.waitForFxEvents();

        assertThat(vm.lab().labTargetProperty().get()).isNull();
        assertThat(robot.lookup("#lab-run").queryButton().isDisabled()).isTrue();
        assertThat(robot.lookup("#lab-target-kind").queryLabeled().getText()).isEqualTo("not a sandbox");
        String summary = WaitForAsyncUtils.asyncFx(
                        () -> vm.lab().summaryProperty().get())
                .get();
        assertThat(summary)
                .startsWith("The lab runs on a server only in a lab sandbox")
                .contains(db.name())
                .contains("sovereign lab SCENARIO --db URL")
                .contains("CREATE SCHEMA lab")
                .doesNotContain(PLANTED);
        // nothing was written: the ledger is still not a sandbox and has no lab actors
        try (Engine look = Engine.openExisting(EngineConfig.forDatabase(LedgerLocation.parse(db.url()))
                .heartbeat(false)
                .registerLazily(true)
                .processLabel("test look")
                .build())) {
            assertThat(look.isLabSandbox()).isFalse();
            assertThat(look.actors().find("operator")).isEmpty();
        }
    }

    private static void texts(Node n, StringBuilder b) {
        if (n instanceof Labeled l) {
            b.append(l.getText()).append('\n');
            if (l.getTooltip() != null) {
                b.append(l.getTooltip().getText()).append('\n');
            }
        }
        if (n instanceof Parent p) {
            p.getChildrenUnmodifiable().forEach(c -> texts(c, b));
        }
    }

    /** Writes to two streams. */
    private static final class Tee extends OutputStream {
        private final OutputStream a;
        private final OutputStream b;

        Tee(OutputStream a, OutputStream b) {
            this.a = a;
            this.b = b;
        }

        @Override
        public synchronized void write(int x) throws IOException {
            a.write(x);
            b.write(x);
        }

        @Override
        public synchronized void write(byte[] bytes, int off, int len) throws IOException {
            a.write(bytes, off, len);
            b.write(bytes, off, len);
        }
    }

    /** A live process's whole command line from {@code /proc} (the JDK's ProcessHandle.Info may leave a long one out). */
    private static String commandLineOf(long pid) {
        try {
            byte[] raw = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline"));
            return new String(raw, StandardCharsets.UTF_8).replace('\0', ' ');
        } catch (IOException gone) {
            return ProcessHandle.of(pid).flatMap(h -> h.info().commandLine()).orElse("(gone)");
        }
    }
}
