package dev.sovereign.engine.internal.sqlite;

import static dev.sovereign.engine.RefusalCategory.ACTOR_EXISTS;
import static dev.sovereign.engine.RefusalCategory.INVALID_ARGUMENT;
import static dev.sovereign.engine.RefusalCategory.UNKNOWN_ACTOR;
import static dev.sovereign.engine.RefusalCategory.UNKNOWN_WORKSPACE_POLICY;

import dev.sovereign.engine.Refusal;
import dev.sovereign.engine.actor.Actor;
import dev.sovereign.engine.actor.Actors;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** The actor registry on the {@code actors} table. Thread-safe. */
public final class SqliteActors implements Actors {
    public static final Set<String> WORKSPACE_POLICIES = Set.of("temporary", "persistent");

    private final Database db;

    public SqliteActors(Database db) {
        this.db = db;
    }

    private static Actor map(ResultSet rs) throws SQLException {
        return new Actor(rs.getString("id"), rs.getString("workspace_policy"), rs.getLong("created_at"));
    }

    @Override
    public Actor add(String id, String workspacePolicy) {
        requireValidId(id, "actor id");
        String policy = workspacePolicy == null ? "temporary" : workspacePolicy;
        requirePolicy(policy);
        return db.write(tx -> {
            if (findIn(tx, id).isPresent()) {
                throw Refusal.of(ACTOR_EXISTS, "Actor " + id + " already exists.").resource("actor", id).build();
            }
            tx.update("INSERT INTO actors (id, workspace_policy, created_at) VALUES (?, ?, ?)", id, policy, tx.now());
            return new Actor(id, policy, tx.now());
        });
    }

    @Override
    public Optional<Actor> find(String id) {
        return db.read(tx -> findIn(tx, id));
    }

    @Override
    public List<Actor> list() {
        return db.read(tx -> tx.query("SELECT id, workspace_policy, created_at FROM actors ORDER BY id",
                SqliteActors::map));
    }

    static Optional<Actor> findIn(Tx tx, String id) throws SQLException {
        return tx.one("SELECT id, workspace_policy, created_at FROM actors WHERE id = ?", SqliteActors::map, id);
    }

    /** Refuses {@code unknown_actor} unless the actor exists. */
    public static Actor requireActor(Tx tx, String id) throws SQLException {
        return findIn(tx, id).orElseThrow(() -> Refusal.of(UNKNOWN_ACTOR, "There is no actor named '" + id
                + "'; add it with 'sovereign actor add " + id + "'.").resource("actor", id).build());
    }

    public static void requirePolicy(String policy) {
        if (!WORKSPACE_POLICIES.contains(policy)) {
            throw Refusal.of(UNKNOWN_WORKSPACE_POLICY, "Unknown workspace policy '" + policy
                    + "'; use 'temporary' or 'persistent'.").build();
        }
    }

    /** Ids are 1-200 printable characters without control characters. */
    public static void requireValidId(String id, String what) {
        if (id == null || id.isBlank() || id.length() > 200 || id.chars().anyMatch(Character::isISOControl)) {
            throw Refusal.of(INVALID_ARGUMENT, "An " + what + " must be 1 to 200 printable characters, got "
                    + (id == null ? "nothing" : "'" + id.replaceAll("\\p{Cntrl}", "?") + "'") + ".").build();
        }
    }
}
