package dev.sovereign.console.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.ConsoleApp;
import dev.sovereign.console.feature.lab.LabViewModel;
import dev.sovereign.console.fx.FxUiExecutor;
import dev.sovereign.console.ledger.LedgerStorage;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.Ledgers;
import dev.sovereign.engine.admin.AdminReader;
import dev.sovereign.engine.admin.LeaseState;
import dev.sovereign.engine.admin.LedgerMetrics;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.lease.Lease;
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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.prefs.Preferences;
import javafx.scene.Node;
import javafx.scene.Parent;
import javafx.scene.Scene;
import javafx.scene.control.Labeled;
import javafx.scene.control.Menu;
import javafx.scene.control.MenuBar;
import javafx.scene.control.MenuItem;
import javafx.scene.control.TextInputControl;
import javafx.scene.image.WritableImage;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * The console on a real PostgreSQL server (the embedded one of engine/postgres's test-jar), opened on a URL that
 * carries a planted password: the Leases page follows an engine on the server granting and releasing — which it
 * can only see through the reader's change marker (decision 0904) — and the password shows nowhere: not in the
 * window's title, status bar, banners, menus, recent list, settings, or anything the console prints. An
 * unreachable server is one sentence without it.
 */
@ExtendWith(ApplicationExtension.class)
class ConsoleOnPostgresTest {
    private static final String PLANTED = "planted-Secret-42";

    private final Clock clock = Clock.systemUTC();
    private final ByteArrayOutputStream printed = new ByteArrayOutputStream();
    private final PrintStream out = System.out;
    private final PrintStream err = System.err;
    private final List<Engine> engines = new ArrayList<>();
    private PgTestServer.Database db;
    private Preferences prefs;
    private ShellViewModel vm;
    private Scene scene;
    private Stage stage;

    @Start
    void start(Stage stage) {
        this.stage = stage;
        // everything the console prints while it runs, kept to look for the password
        System.setOut(new PrintStream(new Tee(out, printed), true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(new Tee(err, printed), true, StandardCharsets.UTF_8));
        db = PgTestServer.freshDatabase();
        Engine owner = engine(); // creates the ledger
        owner.actors().add("alpha");
        owner.actors().add("beta");
        owner.actors().add("gamma");
        for (String actor : List.of("reviewer", "planner", "archivist")) {
            owner.actors().add(actor);
        }
        prefs = Preferences.userRoot().node("sovereign-console-pg-test-" + System.nanoTime());
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
        MainWindow window = new MainWindow(vm, () -> {});
        scene = new Scene(window.create(), 1320, 820);
        window.install(scene);
        vm.attachedLocationProperty().addListener((obs, o, p) -> stage.setTitle(ConsoleApp.title(p, false)));
        stage.setScene(scene);
        stage.show();
    }

    @AfterEach
    void tearDown() throws Exception {
        WaitForAsyncUtils.asyncFx(() -> vm.close()).get(30, TimeUnit.SECONDS);
        engines.forEach(Engine::close);
        System.setOut(out);
        System.setErr(err);
        prefs.removeNode();
    }

    private Engine engine() {
        return engine("host A worker");
    }

    private Engine engine(String label) {
        Engine e = Engine.open(EngineConfig.forDatabase(db.url())
                .heartbeat(false)
                .processLabel(label)
                .build());
        engines.add(e);
        return e;
    }

    private LedgerLocation withPassword() {
        return LedgerLocation.parse(db.url() + "&password=" + PLANTED); // the embedded server trusts local logins
    }

    private static void await(String what, Callable<Boolean> onFx) throws Exception {
        WaitForAsyncUtils.waitFor(
                20, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(onFx).get());
    }

    private LeaseState stateOf(String actor) {
        return vm.leases().rows().stream()
                .filter(i -> i.actor().equals(actor))
                .findFirst()
                .map(i -> i.row().stateAt(vm.ledger().now()))
                .orElse(null);
    }

    @Test
    void theLeasesPageFollowsAnEngineOnTheServerAndThePasswordShowsNowhere(FxRobot robot) throws Exception {
        robot.interact(() -> vm.attach(withPassword()));
        await(
                "attached",
                () -> vm.attachedLocationProperty().get() != null
                        && vm.leases().rows().size() == 6);
        assertThat(stateOf("alpha")).isEqualTo(LeaseState.FREE);

        Engine host = engine();
        Lease alpha = host.leases().acquire("alpha", Duration.ofSeconds(60));
        Lease beta = host.leases().acquire("beta", Duration.ofSeconds(60));
        await("the grants show", () -> stateOf("alpha") == LeaseState.LIVE && stateOf("beta") == LeaseState.LIVE);
        host.leases().release("alpha", alpha.token());
        await("the release shows", () -> stateOf("alpha") == LeaseState.FREE && stateOf("beta") == LeaseState.LIVE);
        assertThat(beta.token()).isGreaterThan(alpha.token());
        Engine other = engine("host B worker"); // a second host, for the picture
        other.leases().acquire("reviewer", Duration.ofSeconds(20));
        other.leases().acquire("planner", Duration.ofSeconds(45));
        await("the second host's grants show", () -> stateOf("planner") == LeaseState.LIVE);

        // issue 29 item 4: a server's ledger shows its database's size (LedgerMetricsContract: the engine's number) and
        // says that the server's disk, which a client cannot see, is watched on the server; no warning about it
        robot.interact(() -> vm.attachment().refresh());
        await("the ledger's size was read", () -> vm.ledger().storageProperty().get() != null);
        LedgerStorage read = WaitForAsyncUtils.asyncFx(
                        () -> vm.ledger().storageProperty().get())
                .get();
        assertThat(read.isFile()).isFalse();
        assertThat(read.metrics().sizeBytes()).isPositive();
        assertThat(read.lowOnDisk()).isFalse();
        assertThat(WaitForAsyncUtils.asyncFx(
                                () -> vm.supervisor().storage().diskProperty().get())
                        .get())
                .contains(LedgerMetrics.bytes(read.metrics().sizeBytes()))
                .contains("watch that disk on the server");

        WritableImage[] shot = new WritableImage[1];
        robot.interact(() -> shot[0] = scene.snapshot(null));
        Path png = Path.of("target", "screenshots", "console-postgres-leases.png");
        Files.createDirectories(png.getParent());
        ScreenshotTest.write(shot[0], png);

        String shown = WaitForAsyncUtils.asyncFx(() -> {
                    StringBuilder b = new StringBuilder(stage.getTitle()).append('\n');
                    texts(scene.getRoot(), b);
                    vm.attachment().recentFiles().forEach(l -> b.append(l).append('\n'));
                    if (vm.bannerProperty().get() != null) {
                        b.append(vm.bannerProperty().get()).append('\n');
                    }
                    return b.toString();
                })
                .get();
        // the console shows and remembers the URL with its secrets removed (decision 0423)
        assertThat(shown)
                .contains(db.name())
                .doesNotContain(PLANTED)
                .doesNotContain("password")
                .contains("not encrypted"); // the status bar says how the connection travels
        assertThat(stage.getTitle()).contains(db.name()).doesNotContain(PLANTED);
        assertThat(robot.lookup("#status-database").queryLabeled().getText())
                .isEqualTo(withPassword().withoutSecrets().toString());
        assertThat(robot.lookup("#status-connection-security").queryLabeled().getText())
                .isEqualTo("not encrypted");
        ByteArrayOutputStream settings = new ByteArrayOutputStream();
        prefs.flush();
        prefs.exportSubtree(settings);
        assertThat(settings.toString(StandardCharsets.UTF_8))
                .contains(db.name())
                .doesNotContain(PLANTED)
                .doesNotContain("password");
        assertThat(printed.toString(StandardCharsets.UTF_8)).doesNotContain(PLANTED);

        // the Lab page says this real ledger is not a lab sandbox and how to make one, and shows no secret either
        robot.interact(() -> vm.pageProperty().set(Page.LAB));
        await(
                "the lab asked the server",
                () -> vm.lab().serverLabProperty().get() == LabViewModel.ServerLab.NOT_A_SANDBOX);
        String lab = WaitForAsyncUtils.asyncFx(() -> vm.lab().summaryProperty().get())
                .get();
        assertThat(lab)
                .startsWith("The lab runs on a server only in a lab sandbox")
                .contains(db.name())
                .doesNotContain(PLANTED);
        robot.interact(() -> vm.pageProperty().set(Page.LEASES));

        // the remembered entry (without the password) opens the same server again in this session
        robot.interact(() -> vm.detach());
        robot.interact(() -> vm.attach(vm.attachment().recentFiles().get(0)));
        await(
                "reopened from the recent list",
                () -> vm.attachedLocationProperty().get() != null && stateOf("beta") == LeaseState.LIVE);
    }

    @Test
    void anUnreachableServerIsOneSentenceWithoutThePassword(FxRobot robot) throws Exception {
        LedgerLocation nowhere = LedgerLocation.parse(
                "jdbc:postgresql://localhost:1/nowhere?user=ops&password=" + PLANTED + "&connectTimeout=2");
        robot.interact(() -> vm.attach(nowhere));
        await("refused", () -> vm.bannerProperty().get() != null);
        Banner b = WaitForAsyncUtils.asyncFx(() -> vm.bannerProperty().get()).get();
        assertThat(b.text())
                .startsWith("Cannot connect to the PostgreSQL ledger")
                .contains("password=***")
                .doesNotContain(PLANTED);
        assertThat(b.text().lines().count()).isEqualTo(1);
        String shown = WaitForAsyncUtils.asyncFx(() -> {
                    StringBuilder sb = new StringBuilder(String.valueOf(stage.getTitle()));
                    texts(scene.getRoot(), sb);
                    return sb.toString();
                })
                .get();
        assertThat(shown).doesNotContain(PLANTED);
        assertThat(vm.attachedLocationProperty().get()).isNull();
        assertThat(printed.toString(StandardCharsets.UTF_8)).doesNotContain(PLANTED);
    }

    /** Every text the scene shows: labels, buttons, fields, menus. */
    private static void texts(Node n, StringBuilder b) {
        if (n instanceof Labeled l) {
            b.append(l.getText()).append('\n');
        }
        if (n instanceof TextInputControl t) {
            b.append(t.getText()).append('\n');
        }
        if (n instanceof MenuBar bar) {
            bar.getMenus().forEach(m -> m.getItems().forEach(i -> menuTexts(i, b)));
        }
        if (n instanceof Parent p) {
            p.getChildrenUnmodifiable().forEach(c -> texts(c, b));
        }
    }

    private static void menuTexts(MenuItem i, StringBuilder b) {
        b.append(i.getText()).append('\n');
        if (i instanceof Menu m) {
            m.getItems().forEach(c -> menuTexts(c, b));
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
}
