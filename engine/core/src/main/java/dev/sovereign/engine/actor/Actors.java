package dev.sovereign.engine.actor;

import java.util.List;
import java.util.Optional;

/** The actor registry. Thread-safe. */
public interface Actors {
    /**
     * Adds an actor. Refuses {@code actor_exists} for a duplicate id, {@code invalid_argument} for an
     * empty or over-long id and {@code unknown_workspace_policy} for a policy other than
     * {@code temporary} or {@code persistent}.
     */
    Actor add(String id, String workspacePolicy);

    default Actor add(String id) {
        return add(id, "temporary");
    }

    Optional<Actor> find(String id);

    List<Actor> list();
}
