package dev.sovereign.engine.lease;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What one heartbeat did, in its one transaction: the leases and attempts it renewed, and those it
 * found lost (actor → token, attempt id → token), each of which was journalled as REJECTED and reported
 * to the grant-loss listeners. Immutable.
 */
public record Beat(
        List<Lease> renewedLeases,
        Set<String> renewedAttempts,
        Map<String, Long> lostLeases,
        Map<String, Long> lostAttempts) {
    public Beat {
        renewedLeases = List.copyOf(renewedLeases);
        renewedAttempts = Set.copyOf(renewedAttempts);
        lostLeases = Map.copyOf(lostLeases);
        lostAttempts = Map.copyOf(lostAttempts);
    }
}
