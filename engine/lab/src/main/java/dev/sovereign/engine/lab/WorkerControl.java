package dev.sovereign.engine.lab;

import dev.sovereign.engine.worker.Worker;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The control channel of a worker process on its standard input, one command a line: {@code pause},
 * {@code resume} (a cooperative pause: no work, no heartbeats), {@code skew DUR} (set the clock offset),
 * {@code contend} (try to acquire once now), {@code stop}. End of input means the parent is gone: the
 * worker stops, so a crashed console leaves no orphans. Shared by the lab's {@link WorkerMain} and
 * {@code sovereign worker --control-stdin}, so both obey the same lines.
 */
public final class WorkerControl {
    private WorkerControl() {}

    /**
     * Reads {@code in} until its end (blocking), driving {@code worker}; a {@code skew} line's duration is
     * read by {@code parseDuration} and handed to {@code skew}. Unknown lines are ignored: the channel is
     * for the lab, not for people.
     */
    public static void read(
            InputStream in, Worker worker, Function<String, Duration> parseDuration, Consumer<Duration> skew) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                String[] f = line.trim().split("\\s+");
                switch (f[0].toLowerCase(Locale.ROOT)) {
                    case "pause" -> worker.pause();
                    case "resume" -> worker.resume();
                    case "stop" -> worker.stop();
                    case "contend" -> worker.contend();
                    case "skew" -> {
                        if (f.length == 2) {
                            skew.accept(parseDuration.apply(f[1]));
                        }
                    }
                    default -> {
                        // ignored
                    }
                }
            }
            worker.stop(); // end of input: the parent is gone
        } catch (IOException | RuntimeException e) {
            worker.stop();
        }
    }
}
