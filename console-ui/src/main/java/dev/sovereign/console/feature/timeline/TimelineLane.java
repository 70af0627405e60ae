package dev.sovereign.console.feature.timeline;

import java.util.List;

/** One actor's history: who held it when, and what happened to it. Immutable. */
public record TimelineLane(String actor, List<HolderSegment> segments, List<TimelineMarker> markers) {
    public TimelineLane {
        segments = List.copyOf(segments);
        markers = List.copyOf(markers);
    }
}
