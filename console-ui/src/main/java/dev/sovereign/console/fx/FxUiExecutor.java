package dev.sovereign.console.fx;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import javafx.application.Platform;

/** The real executor: a small pool of daemon threads, results through {@link Platform#runLater}. */
public final class FxUiExecutor implements UiExecutor {
    private final AtomicInteger threads = new AtomicInteger();
    private final ExecutorService pool = Executors.newFixedThreadPool(2, r -> {
        Thread t = new Thread(r, "console-background-" + threads.incrementAndGet());
        t.setDaemon(true);
        return t;
    });

    @Override
    public void onUi(Runnable action) {
        if (Platform.isFxApplicationThread()) {
            action.run();
        } else {
            Platform.runLater(action);
        }
    }

    @Override
    public <T> void background(Callable<T> work, Consumer<T> onSuccess, Consumer<Throwable> onFailure) {
        pool.execute(() -> {
            try {
                T result = work.call();
                Platform.runLater(() -> onSuccess.accept(result));
            } catch (Exception | Error e) {
                Platform.runLater(() -> onFailure.accept(e));
            }
        });
    }

    @Override
    public void close() {
        pool.shutdownNow();
    }
}
