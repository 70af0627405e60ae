package dev.sovereign.engine.lab;

import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.journal.FenceEvent;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The journal as a checker sees it: every fence event written since a scenario started that concerns
 * its actor (by its actor column, or because the actor is the resource), oldest first. Immutable.
 */
final class LedgerFacts {
    private final List<FenceEvent> events;

    LedgerFacts(List<FenceEvent> all, String actor) {
        this.events = all.stream()
                .filter(e ->
                        actor.equals(e.actorId()) || ("actor".equals(e.resourceType()) && actor.equals(e.resourceId())))
                .toList();
    }

    List<FenceEvent> events() {
        return events;
    }

    List<FenceEvent> where(Predicate<FenceEvent> p) {
        return events.stream().filter(p).toList();
    }

    List<FenceEvent> of(EventKind kind, Predicate<FenceEvent> p) {
        return where(e -> e.kind() == kind && p.test(e));
    }

    Optional<FenceEvent> first(EventKind kind, Predicate<FenceEvent> p) {
        return events.stream().filter(e -> e.kind() == kind && p.test(e)).findFirst();
    }

    /** Lease grants (acquired or taken over). */
    List<FenceEvent> grants() {
        return where(e -> "actor".equals(e.resourceType())
                && (e.kind() == EventKind.LEASE_ACQUIRED || e.kind() == EventKind.LEASE_TAKEN_OVER));
    }

    static String refs(List<FenceEvent> events) {
        if (events.isEmpty()) {
            return "none";
        }
        return String.join(
                ", ",
                events.stream()
                        .map(e -> "#" + e.seq() + " " + e.kind()
                                + (e.token() != null ? " token " + e.token() : "")
                                + (e.presentedToken() != null ? " presented " + e.presentedToken() : "")
                                + (e.currentToken() != null ? " current " + e.currentToken() : "")
                                + (e.category() != null ? " (" + e.category() + ")" : ""))
                        .toList());
    }
}
