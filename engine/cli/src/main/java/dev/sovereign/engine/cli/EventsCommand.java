package dev.sovereign.engine.cli;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.journal.FenceEvent;
import dev.sovereign.engine.journal.JournalTail;
import dev.sovereign.engine.rules.Arguments;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code sovereign events [--follow] [--since SEQ] [--limit N]}: the fence journal, oldest first.
 * Without {@code --since} it shows the last {@code N} events. {@code --follow} then polls for new
 * ones until SIGINT or SIGTERM, and exits 0.
 */
@Command(name = "events", description = "Show the fence journal (--follow: keep printing new events).")
final class EventsCommand extends EngineCommand {
    private static final String[] HEADERS = {"SEQ", "TIME", "KIND", "RESOURCE", "PROCESS", "TOKEN", "DETAIL"};
    /** Minimum column widths; the first batch may widen them, and followed events keep them, so they line up. */
    private static final int[] MIN_WIDTHS = {5, 18, 16, 14, 14, 6};

    @Option(
            names = {"-f", "--follow"},
            description = "Keep polling for new events until SIGINT or SIGTERM.")
    boolean follow;

    @Option(
            names = "--since",
            paramLabel = "SEQ",
            converter = Converters.SeqConverter.class,
            description = "Show events after this sequence number (default: the last N).")
    Long since;

    @Option(
            names = "--limit",
            paramLabel = "N",
            defaultValue = "50",
            converter = Converters.LimitConverter.class,
            description = "Show at most N events before following (default: ${DEFAULT-VALUE}).")
    int limit;

    @Option(
            names = "--poll-interval",
            paramLabel = "DUR",
            defaultValue = "250ms",
            hidden = true,
            converter = Converters.DurationConverter.class,
            description = "How often --follow polls.")
    Duration pollInterval;

    @Override
    protected boolean heartbeats() {
        return follow;
    }

    @Override
    protected void checkArguments() {
        Arguments.durationMillis(pollInterval, "poll interval (--poll-interval)");
    }

    @Override
    protected int run(Engine engine, Output out) throws InterruptedException {
        long after = since != null ? since : Math.max(0, engine.journal().lastSeq() - limit);
        List<FenceEvent> first = engine.journal().since(after, limit);
        int[] widths = MIN_WIDTHS.clone();
        if (!out.json()) {
            if (first.isEmpty() && !follow) {
                out.line("No events" + (since != null ? " after seq " + since : "") + ".");
                return ExitCode.OK;
            }
            Times t = out.times();
            for (FenceEvent e : first) {
                String[] cells = cells(e, t);
                for (int i = 0; i < widths.length; i++) {
                    widths[i] = Math.max(widths[i], cells[i].length());
                }
            }
            out.line(row(HEADERS, widths));
        }
        long last = print(first, out, after, widths);
        if (!follow) {
            return ExitCode.OK;
        }
        // A tail, not `seq > last`: on a server a seq is drawn at insert and a row may commit after a later one
        // (decision 0900); the tail shows it in its place instead of never.
        JournalTail<FenceEvent> tail =
                JournalTail.of(engine.journal(), last, engine.config().clock(), JournalTail.DEFAULT_MARGIN);
        try (StopSignals.Stop stop =
                SovereignCommand.of(spec).environment().stopSignals().listen()) {
            while (!stop.await(pollInterval)) {
                print(tail.poll(1_000), out, last, widths);
            }
        }
        return ExitCode.OK;
    }

    private static long print(List<FenceEvent> events, Output out, long last, int[] widths) {
        Times t = out.times();
        for (FenceEvent e : events) {
            if (out.json()) {
                out.emit(JsonShapes.event(e));
            } else {
                out.line(row(cells(e, t), widths));
            }
            last = e.seq();
        }
        return last;
    }

    private static String[] cells(FenceEvent e, Times t) {
        return new String[] {
            Long.toString(e.seq()),
            t.at(e.at()),
            e.kind().name(),
            e.resourceType() + " " + e.resourceId(),
            e.processIdentity() == null ? "-" : e.processIdentity(),
            tokens(e),
            detail(e)
        };
    }

    private static String tokens(FenceEvent e) {
        if (e.kind() == EventKind.REJECTED) {
            return (e.presentedToken() == null ? "-" : e.presentedToken()) + " vs "
                    + (e.currentToken() == null ? "-" : e.currentToken());
        }
        return e.token() == null ? "-" : e.token().toString();
    }

    private static String detail(FenceEvent e) {
        String d = e.detail() == null ? "" : e.detail();
        return e.category() == null ? d : e.category() + ": " + d;
    }

    private static String row(String[] cells, int[] widths) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < cells.length; i++) {
            if (i > 0) {
                b.append("  ");
            }
            String c = cells[i];
            if (i == 0) {
                b.append(" ".repeat(Math.max(0, widths[0] - c.length()))).append(c);
            } else if (i < cells.length - 1) {
                b.append(c).append(" ".repeat(Math.max(0, widths[i] - c.length())));
            } else {
                b.append(c);
            }
        }
        return b.toString().stripTrailing();
    }
}
