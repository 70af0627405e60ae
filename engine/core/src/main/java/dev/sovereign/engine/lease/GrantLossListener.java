package dev.sovereign.engine.lease;

/**
 * Called, on the heartbeat thread, as soon as a renewal is refused. A listener must stop the work
 * it was doing under that grant; it must not block for long.
 */
@FunctionalInterface
public interface GrantLossListener {
    void onLost(GrantLost lost);
}
