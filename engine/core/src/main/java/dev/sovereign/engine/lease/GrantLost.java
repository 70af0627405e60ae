package dev.sovereign.engine.lease;

/**
 * Told to a {@link GrantLossListener} when a heartbeat or renewal finds that this process no
 * longer holds a lease or attempt it believed it held.
 *
 * @param kind       {@code actor} for an actor lease, {@code attempt} for an execution attempt
 * @param resourceId the actor id or attempt id
 * @param token      the token this process held
 */
public record GrantLost(String kind, String resourceId, long token) {}
