package dev.sovereign.console.fx;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import javafx.scene.chart.ValueAxis;

/**
 * A chart's time axis: epoch milliseconds, labelled at round times of the zone times are shown in ({@code 14:00},
 * {@code 14:15}, ... or {@code 14:02:30} when zoomed to minutes; a day's date where it changes), a label every 80
 * pixels at most, so labels never overlap or rotate (issue 31, item 19: sixty category labels did). The bounds are
 * set by the page; it never ranges itself.
 */
public final class TimeAxis extends ValueAxis<Number> {
    /** Label steps, shortest first: each a round time. */
    private static final long[] STEPS = {
        1_000,
        5_000,
        10_000,
        15_000,
        30_000,
        60_000,
        120_000,
        300_000,
        600_000,
        900_000,
        1_800_000,
        3_600_000,
        2 * 3_600_000,
        3 * 3_600_000,
        6 * 3_600_000,
        12 * 3_600_000,
        24 * 3_600_000
    };
    /** The least room a label gets, in pixels. */
    static final double LABEL_ROOM = 80;

    private static final DateTimeFormatter SECONDS = DateTimeFormatter.ofPattern("HH:mm:ss");
    private static final DateTimeFormatter MINUTES = DateTimeFormatter.ofPattern("HH:mm");
    private static final DateTimeFormatter DAY = DateTimeFormatter.ofPattern("MMM d HH:mm");

    private final Supplier<ZoneId> zone;
    private long step = 60_000;

    public TimeAxis(Supplier<ZoneId> zone) {
        this.zone = zone;
        setAutoRanging(false);
        setAnimated(false);
        setMinorTickVisible(false);
    }

    /** The step between two labels for {@code span} ms over {@code length} pixels. */
    static long stepFor(long span, double length) {
        double most = Math.max(2, Math.floor(length / LABEL_ROOM));
        for (long s : STEPS) {
            if (span / s <= most) {
                return s;
            }
        }
        return STEPS[STEPS.length - 1];
    }

    @Override
    protected List<Number> calculateMinorTickMarks() {
        return List.of();
    }

    @Override
    protected void setRange(Object range, boolean animate) {
        double[] r = (double[]) range;
        setLowerBound(r[0]);
        setUpperBound(r[1]);
        currentLowerBound.set(r[0]);
        setScale(r[2]);
    }

    @Override
    protected Object getRange() {
        return new double[] {getLowerBound(), getUpperBound(), getScale()};
    }

    @Override
    protected List<Number> calculateTickValues(double length, Object range) {
        double[] r = (double[]) range;
        long lower = (long) r[0];
        long upper = (long) r[1];
        step = stepFor(upper - lower, length);
        List<Number> ticks = new ArrayList<>();
        if (upper <= lower) {
            return ticks;
        }
        // round in the zone's local time, so that 15-minute labels read :00, :15 where the zone is off by a half hour
        long offset =
                zone.get().getRules().getOffset(Instant.ofEpochMilli(lower)).getTotalSeconds() * 1_000L;
        long t = Math.floorDiv(lower + offset + step - 1, step) * step - offset;
        for (; t <= upper; t += step) {
            ticks.add(t);
        }
        return ticks;
    }

    @Override
    protected String getTickMarkLabel(Number value) {
        Instant at = Instant.ofEpochMilli(value.longValue());
        var local = at.atZone(zone.get());
        if (step >= 3_600_000 && local.getHour() == 0 && local.getMinute() == 0) {
            return DAY.format(local); // midnight: the new day's date
        }
        return (step < 60_000 ? SECONDS : MINUTES).format(local);
    }
}
