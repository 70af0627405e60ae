package dev.sovereign.console.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.fx.CurrentThreadUiExecutor;
import dev.sovereign.console.fx.UiExecutor;
import dev.sovereign.engine.lab.Demo;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.Callable;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo's lifecycle without a toolkit or worker processes: a start that fails says why, a start
 * abandoned meanwhile shows nothing, a second start while one starts is ignored, and a stop lets go.
 */
class DemoSessionTest {
    private final List<Banner> banners = new ArrayList<>();
    private final List<Path> attached = new ArrayList<>();
    private int letGo;

    private DemoSession session(UiExecutor ui, DemoSession.Starter starter) {
        return new DemoSession(ui, starter, () -> letGo++, attached::add, banners::add);
    }

    @Test
    void aDemoThatCannotStartSaysWhyInADangerBannerAndIsNotStarting() {
        DemoSession demo = session(new CurrentThreadUiExecutor(), () -> {
            throw new IOException("no space left on device");
        });

        demo.start();

        assertThat(letGo).as("whatever was attached is let go first").isEqualTo(1);
        assertThat(demo.startingProperty().get()).isFalse();
        assertThat(demo.runningProperty().get()).isFalse();
        assertThat(demo.demo()).isNull();
        assertThat(attached).isEmpty();
        assertThat(banners)
                .containsExactly(new Banner(
                        Banner.Severity.DANGER, "Could not start the demo", "no space left on device", false));
    }

    @Test
    void aDemoStoppedWhileStartingShowsNothingWhenItsStartEnds() {
        LaterExecutor ui = new LaterExecutor();
        DemoSession demo = session(ui, () -> {
            throw new IOException("too late to matter");
        });

        demo.start();
        assertThat(demo.startingProperty().get()).isTrue();
        demo.start(); // a second click while the first start runs
        assertThat(ui.pending.size()).as("one start in flight").isEqualTo(1);

        demo.stop(); // another file was attached meanwhile
        assertThat(demo.startingProperty().get()).isFalse();
        ui.runAll();

        assertThat(banners).isEmpty();
        assertThat(attached).isEmpty();
        assertThat(demo.narrationProperty().get()).isEmpty();
    }

    /**
     * The console closed (its background threads gone) while a demo was starting; the start then ends: the
     * abandoned demo's real worker processes are stopped anyway, here, instead of the close being rejected
     * on the JavaFX thread (seen in CI as a RejectedExecutionException when a signal closed the console).
     */
    @Test
    void aDemoThatFinishesStartingAfterTheConsoleClosedIsStoppedAnyway(@TempDir Path dir) {
        LaterExecutor ui = new LaterExecutor();
        Demo[] started = new Demo[1];
        DemoSession demo = session(ui, () -> {
            started[0] = Demo.start(Demo.Settings.defaults(Demo.newDatabase(dir, Clock.systemUTC()))
                    .withoutChaos());
            return started[0];
        });
        demo.start();
        assertThat(demo.release())
                .as("the console's close: nothing running yet")
                .isNull();
        ui.closed = true; // the console's executor is shut down

        ui.runAll(); // the start ends after the close

        assertThat(started[0]).isNotNull();
        assertThat(started[0].workers())
                .isNotEmpty()
                .allSatisfy(w -> assertThat(w.isAlive()).as("worker %s", w).isFalse());
        assertThat(attached).isEmpty();
    }

    @Test
    void stoppingOrReleasingWithNoDemoLeavesNothingRunning() {
        DemoSession demo = session(new CurrentThreadUiExecutor(), () -> {
            throw new AssertionError("not started");
        });

        demo.stop();

        assertThat(demo.release()).isNull();
        assertThat(demo.runningProperty().get()).isFalse();
        assertThat(letGo).isZero();
    }

    /** Background work waits until the test runs it; results come back at once. */
    private static final class LaterExecutor implements UiExecutor {
        final Queue<Runnable> pending = new ArrayDeque<>();

        @Override
        public void onUi(Runnable action) {
            action.run();
        }

        boolean closed;

        @Override
        public <T> void background(Callable<T> work, Consumer<T> onSuccess, Consumer<Throwable> onFailure) {
            if (closed) {
                throw new RejectedExecutionException("closed, as FxUiExecutor after close()");
            }
            pending.add(() -> {
                T result;
                try {
                    result = work.call();
                } catch (Exception | Error e) {
                    onFailure.accept(e);
                    return;
                }
                onSuccess.accept(result);
            });
        }

        void runAll() {
            while (!pending.isEmpty()) {
                pending.poll().run();
            }
        }

        @Override
        public void close() {}
    }
}
