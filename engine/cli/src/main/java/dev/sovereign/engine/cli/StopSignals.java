package dev.sovereign.engine.cli;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * Where a long-running command (events --follow, and later worker and supervisor) learns that it
 * should stop: SIGINT or SIGTERM in a real process, a call to {@link Stop#request()} in a test.
 *
 * <p>Only a long-running command listens. While it does, SIGINT and SIGTERM no longer end the JVM
 * (which would exit 130 or 143): they ask the command's loop to finish, so it can release what it
 * holds and return 0. Every other command keeps the JVM's default, so Ctrl-C exits 130.
 */
@FunctionalInterface
public interface StopSignals {
    /** Starts listening; the returned stop is requested by the next signal until it is closed. */
    Stop listen();

    /** SIGINT and SIGTERM of this JVM. */
    static StopSignals posix() {
        return () -> {
            Stop stop = new Stop();
            SignalHandler handler = signal -> stop.request();
            Signal intSignal = new Signal("INT");
            Signal termSignal = new Signal("TERM");
            SignalHandler previousInt = Signal.handle(intSignal, handler);
            SignalHandler previousTerm = Signal.handle(termSignal, handler);
            stop.onClose(() -> {
                Signal.handle(intSignal, previousInt);
                Signal.handle(termSignal, previousTerm);
            });
            return stop;
        };
    }

    /** Always hands out {@code stop}: a test requests it by hand. */
    static StopSignals manual(Stop stop) {
        return () -> stop;
    }

    /** One request to stop. Thread-safe: signal handlers and tests request it from other threads. */
    final class Stop implements AutoCloseable {
        private final CountDownLatch requested = new CountDownLatch(1);
        private volatile Runnable onClose = () -> {};

        public void request() {
            requested.countDown();
        }

        public boolean isRequested() {
            return requested.getCount() == 0;
        }

        /** Waits up to {@code timeout}; true as soon as a stop was requested. */
        public boolean await(Duration timeout) throws InterruptedException {
            return requested.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
        }

        void onClose(Runnable action) {
            this.onClose = action;
        }

        @Override
        public void close() {
            onClose.run();
        }
    }
}
