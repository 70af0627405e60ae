package dev.sovereign.console.feature.timeline;

import dev.sovereign.engine.admin.JournalEntry;

/** A point event drawn on an actor's lane: a rejection, a takeover or a recovery. Immutable. */
public record TimelineMarker(Kind kind, String actor, JournalEntry event) {

    public enum Kind {
        REJECTION,
        TAKEOVER,
        RECOVERY
    }

    public long at() {
        return event.at();
    }

    public long seq() {
        return event.seq();
    }
}
