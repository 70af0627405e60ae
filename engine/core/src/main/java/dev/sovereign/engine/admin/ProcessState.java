package dev.sovereign.engine.admin;

/** A registered process at one instant: see {@link ProcessRow#stateAt(long)}. */
public enum ProcessState {
    /** Running, and its last heartbeat is recent enough for its own interval. */
    LIVE,
    /** Not stopped, but it missed {@code EngineConfig.STALE_AFTER_MISSED_BEATS} of its own heartbeats. */
    STALE,
    /** Closed cleanly ({@code stopped_at} is set). */
    STOPPED,
    /** A CLI identity that never sent a heartbeat: it never promised to beat, so it is neither live nor stale. */
    NO_HEARTBEAT
}
