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

    /**
     * The actor {@code id}, added with {@code workspacePolicy} when it does not exist yet: one call, idempotent, safe
     * when several processes ensure the same actor at once (one adds it, the others get it). An actor that exists is
     * returned as it is, whatever its policy. Writes nothing when the actor exists. For a caller whose actors are
     * names it meets at run time (a lock name, docs/decisions/0116).
     *
     * <p>On PostgreSQL, adding needs the ledger's operator role or its owner, or a worker login when the owner allowed
     * workers to add actors ({@code sovereign actor workers-may-add on}); otherwise the database refuses and this
     * throws a {@link dev.sovereign.engine.base.StorageException} whose sentence names those steps. A SQLite ledger
     * has no logins: every process that can write the file may add actors.
     *
     * @throws dev.sovereign.engine.base.Refusal {@code invalid_argument} or {@code unknown_workspace_policy}, as
     *     {@link #add(String, String)}
     */
    Actor ensure(String id, String workspacePolicy);

    /** {@link #ensure(String, String)} with the {@code temporary} workspace policy. */
    default Actor ensure(String id) {
        return ensure(id, "temporary");
    }

    Optional<Actor> find(String id);

    List<Actor> list();
}
