package dev.sovereign.console.fx;

import java.util.concurrent.Callable;
import java.util.function.Consumer;

/**
 * Where console work runs: database reads and file writes in the background, their results on the
 * UI thread. Views and view models never start threads themselves; tests substitute
 * {@link CurrentThreadUiExecutor} so everything runs synchronously on the test's thread.
 */
public interface UiExecutor extends AutoCloseable {
    /** Runs {@code action} on the UI thread (at once when already on it). */
    void onUi(Runnable action);

    /**
     * Runs {@code work} in the background, then hands its result (or its failure) to the UI thread.
     */
    <T> void background(Callable<T> work, Consumer<T> onSuccess, Consumer<Throwable> onFailure);

    /** Stops the background threads; queued work is dropped. */
    @Override
    void close();
}
