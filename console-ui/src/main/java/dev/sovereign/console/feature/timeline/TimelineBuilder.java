package dev.sovereign.console.feature.timeline;

import dev.sovereign.console.feature.timeline.HolderSegment.EndReason;
import dev.sovereign.engine.admin.AdminSnapshot;
import dev.sovereign.engine.admin.JournalEntry;
import dev.sovereign.engine.admin.LeaseRow;
import dev.sovereign.engine.admin.ProcessRef;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds one actor's lane from its journal events (grants, renewals, releases, takeovers,
 * rejections, recoveries, in seq order) and its lease row in the last snapshot (whether the hold is
 * still in the lease table, and until when). Pure. The journal is read in seq order, so a skewed
 * writer clock can misplace an event in time but never reorder holders.
 *
 * <p>Which actors get a lane, and keeping their inputs current as the journal grows, is
 * {@link TimelineIndex}'s job.
 */
final class TimelineBuilder {
    private TimelineBuilder() {}

    /** The lanes to draw, and how many actors there are in all. */
    record Lanes(List<TimelineLane> shown, int total) {}

    /** Every lane, built from scratch (for tests and one-off use). */
    static List<TimelineLane> build(List<JournalEntry> events, AdminSnapshot snapshot) {
        return build(events, snapshot, Integer.MAX_VALUE).shown();
    }

    /** At most {@code maxLanes} lanes, built from scratch: the same as a fresh {@link TimelineIndex}. */
    static Lanes build(List<JournalEntry> events, AdminSnapshot snapshot, int maxLanes) {
        TimelineIndex index = new TimelineIndex();
        events.forEach(index::append);
        return index.lanes(snapshot, maxLanes);
    }

    /**
     * One actor's lane.
     *
     * @param events  the actor's events in the console's window, oldest first
     * @param row     its lease row in the snapshot, or null when the snapshot does not have the actor
     * @param takenAt when the snapshot was read (ends a hold the journal shows but the table no longer has)
     */
    static TimelineLane lane(String actor, Iterable<JournalEntry> events, LeaseRow row, long takenAt) {
        LaneBuilder lane = new LaneBuilder(actor);
        for (JournalEntry e : events) {
            switch (e.kind()) {
                case "LEASE_ACQUIRED", "LEASE_TAKEN_OVER" -> {
                    boolean takeover = e.kind().equals("LEASE_TAKEN_OVER");
                    lane.close(e.at(), takeover ? EndReason.TAKEN_OVER : EndReason.UNKNOWN);
                    ProcessRef holder = e.process() == null ? ProcessRef.unknown("?") : e.process();
                    lane.open = new Open(holder, e.token() == null ? 0 : e.token(), e.at());
                    if (takeover) {
                        lane.markers.add(new TimelineMarker(TimelineMarker.Kind.TAKEOVER, actor, e));
                    }
                }
                case "LEASE_RENEWED" -> {
                    if (lane.open != null && e.token() != null && lane.open.token == e.token()) {
                        lane.open.renewals.add(e.at());
                    }
                }
                case "LEASE_RELEASED" -> {
                    if (lane.open != null && e.token() != null && lane.open.token == e.token()) {
                        lane.close(e.at(), EndReason.RELEASED);
                    }
                }
                case "REJECTED" -> lane.markers.add(new TimelineMarker(TimelineMarker.Kind.REJECTION, actor, e));
                case "ATTEMPT_RECOVERED" ->
                    lane.markers.add(new TimelineMarker(TimelineMarker.Kind.RECOVERY, actor, e));
                default -> {
                    // other events do not change who holds the actor
                }
            }
        }
        if (row != null && !row.isFree()) {
            if (lane.open == null || lane.open.token != row.token()) {
                // The grant is older than the events read (or still on its way): start from the row.
                lane.close(row.acquiredAt(), EndReason.UNKNOWN);
                lane.open = new Open(row.holder(), row.token(), row.acquiredAt());
            }
            lane.segments.add(lane.open.toSegment(actor, null, row.expiresAt(), EndReason.HOLDING));
            lane.open = null;
        } else if (lane.open != null) {
            // The journal says held, the table says not: it ended between the two reads.
            lane.close(Math.max(lane.open.start, takenAt), EndReason.UNKNOWN);
        }
        return new TimelineLane(actor, coloured(lane.segments), lane.markers);
    }

    /**
     * Colours by hold, not by process (issue 17, item 13): a hold's colour follows from its token, and a
     * hold never takes the colour of the one just before it on its lane — so two holds side by side always
     * differ, also when one process holds twice in a row or two processes' colours would coincide. The
     * process is named in the bar's label. A colour depends only on the hold and its predecessor, so bars
     * keep their colours as the window slides (except a bar whose predecessor just slid out, rarely).
     */
    static List<HolderSegment> coloured(List<HolderSegment> segments) {
        List<HolderSegment> out = new ArrayList<>(segments.size());
        int previous = -1;
        for (HolderSegment s : segments) {
            int c = colourOf(s.token(), previous);
            out.add(
                    s.colour() == c
                            ? s
                            : new HolderSegment(
                                    s.actor(),
                                    s.holder(),
                                    s.token(),
                                    s.start(),
                                    s.end(),
                                    s.expiresAt(),
                                    s.endReason(),
                                    s.renewals(),
                                    c));
            previous = c;
        }
        return out;
    }

    static int colourOf(long token, int previous) {
        int c = (int) Math.floorMod(token, (long) TimelineViewModel.COLOURS);
        return c == previous ? (c + 1) % TimelineViewModel.COLOURS : c;
    }

    private static final class LaneBuilder {
        final String actor;
        final List<HolderSegment> segments = new ArrayList<>();
        final List<TimelineMarker> markers = new ArrayList<>();
        Open open;

        LaneBuilder(String actor) {
            this.actor = actor;
        }

        void close(long at, EndReason reason) {
            if (open != null) {
                segments.add(open.toSegment(actor, Math.max(at, open.start), null, reason));
                open = null;
            }
        }
    }

    private static final class Open {
        final ProcessRef holder;
        final long token;
        final long start;
        final List<Long> renewals = new ArrayList<>();

        Open(ProcessRef holder, long token, long start) {
            this.holder = holder;
            this.token = token;
            this.start = start;
        }

        HolderSegment toSegment(String actor, Long end, Long expiresAt, EndReason reason) {
            return new HolderSegment(actor, holder, token, start, end, expiresAt, reason, renewals, -1);
        }
    }
}
