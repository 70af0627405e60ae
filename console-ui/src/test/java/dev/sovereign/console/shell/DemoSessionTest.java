package dev.sovereign.console.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.fx.CurrentThreadUiExecutor;
import dev.sovereign.console.fx.UiExecutor;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

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
        assertThat(banners).containsExactly(new Banner(Banner.Severity.DANGER, "Could not start the demo",
                "no space left on device", false));
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

        @Override
        public <T> void background(Callable<T> work, Consumer<T> onSuccess, Consumer<Throwable> onFailure) {
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
        public void close() {
        }
    }
}
