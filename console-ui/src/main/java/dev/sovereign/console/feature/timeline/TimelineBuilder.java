package dev.sovereign.console.feature.timeline;

import dev.sovereign.console.feature.timeline.HolderSegment.EndReason;
import dev.sovereign.engine.admin.AdminSnapshot;
import dev.sovereign.engine.admin.JournalEntry;
import dev.sovereign.engine.admin.LeaseRow;
import dev.sovereign.engine.admin.ProcessRef;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds the lanes from the journal (grants, renewals, releases, takeovers, rejections, recoveries)
 * and the last snapshot (which holds are still in the lease table, and until when). Pure; the
 * journal is read in seq order, so a skewed writer clock can misplace an event in time but never
 * reorder holders.
 */
final class TimelineBuilder {
    private TimelineBuilder() {
    }

    static List<TimelineLane> build(List<JournalEntry> events, AdminSnapshot snapshot) {
        Map<String, LaneBuilder> lanes = new LinkedHashMap<>();
        Map<String, Integer> colours = new HashMap<>();
        if (snapshot != null) {
            snapshot.leases().forEach(l -> lanes.put(l.actor(), new LaneBuilder(l.actor())));
        }
        for (JournalEntry e : events) {
            String actor = e.actorLane();
            if (actor == null) {
                continue;
            }
            LaneBuilder lane = lanes.computeIfAbsent(actor, LaneBuilder::new);
            switch (e.kind()) {
                case "LEASE_ACQUIRED", "LEASE_TAKEN_OVER" -> {
                    boolean takeover = e.kind().equals("LEASE_TAKEN_OVER");
                    lane.close(e.at(), takeover ? EndReason.TAKEN_OVER : EndReason.UNKNOWN);
                    ProcessRef holder = e.process() == null ? ProcessRef.unknown("?") : e.process();
                    lane.open = new Open(holder, e.token() == null ? 0 : e.token(), e.at(), colour(colours, holder));
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
                case "ATTEMPT_RECOVERED" -> lane.markers.add(new TimelineMarker(TimelineMarker.Kind.RECOVERY, actor, e));
                default -> {
                    // other events do not change who holds the actor
                }
            }
        }
        List<TimelineLane> out = new ArrayList<>();
        for (LaneBuilder lane : lanes.values()) {
            LeaseRow row = snapshot == null ? null : snapshot.leases().stream()
                    .filter(l -> l.actor().equals(lane.actor)).findFirst().orElse(null);
            if (row != null && !row.isFree()) {
                if (lane.open == null || lane.open.token != row.token()) {
                    // The grant is older than the events read (or still on its way): start from the row.
                    lane.close(row.acquiredAt(), EndReason.UNKNOWN);
                    lane.open = new Open(row.holder(), row.token(), row.acquiredAt(), colour(colours, row.holder()));
                }
                lane.segments.add(lane.open.toSegment(lane.actor, null, row.expiresAt(), EndReason.HOLDING));
                lane.open = null;
            } else if (lane.open != null) {
                // The journal says held, the table says not: it ended between the two reads.
                long end = snapshot == null ? lane.open.start : Math.max(lane.open.start, snapshot.takenAt());
                lane.close(end, EndReason.UNKNOWN);
            }
            out.add(new TimelineLane(lane.actor, lane.segments, lane.markers));
        }
        return out;
    }

    private static int colour(Map<String, Integer> colours, ProcessRef p) {
        return colours.computeIfAbsent(p.identity(), k -> colours.size() % TimelineViewModel.COLOURS);
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
        final int colour;
        final List<Long> renewals = new ArrayList<>();

        Open(ProcessRef holder, long token, long start, int colour) {
            this.holder = holder;
            this.token = token;
            this.start = start;
            this.colour = colour;
        }

        HolderSegment toSegment(String actor, Long end, Long expiresAt, EndReason reason) {
            return new HolderSegment(actor, holder, token, start, end, expiresAt, reason, renewals, colour);
        }
    }
}
