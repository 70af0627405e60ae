package dev.sovereign.console.fx;

import java.util.concurrent.Callable;
import java.util.function.Consumer;

/** Runs everything at once on the caller's thread: for view-model tests, which need no FX toolkit. */
public final class CurrentThreadUiExecutor implements UiExecutor {
    @Override
    public void onUi(Runnable action) {
        action.run();
    }

    @Override
    public <T> void background(Callable<T> work, Consumer<T> onSuccess, Consumer<Throwable> onFailure) {
        T result;
        try {
            result = work.call();
        } catch (Exception | Error e) {
            onFailure.accept(e);
            return;
        }
        onSuccess.accept(result);
    }

    @Override
    public void close() {
        // nothing runs in the background
    }
}
