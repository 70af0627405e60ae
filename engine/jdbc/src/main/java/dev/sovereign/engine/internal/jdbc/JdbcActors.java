package dev.sovereign.engine.internal.jdbc;

import dev.sovereign.engine.actor.Actor;
import dev.sovereign.engine.actor.Actors;
import dev.sovereign.engine.rules.ActorRules;
import dev.sovereign.engine.rules.Arguments;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/** The actor registry on the {@code actors} table, for both backends. Thread-safe. */
public final class JdbcActors implements Actors {
    private static final String COLUMNS = "id, workspace_policy, created_at";

    private final Transactions db;

    public JdbcActors(Transactions db) {
        this.db = db;
    }

    private static Actor map(ResultSet rs) throws SQLException {
        return new Actor(rs.getString("id"), rs.getString("workspace_policy"), rs.getLong("created_at"));
    }

    @Override
    public Actor add(String id, String workspacePolicy) {
        Arguments.requireValidId(id, "actor id");
        String policy = workspacePolicy == null ? Arguments.DEFAULT_WORKSPACE_POLICY : workspacePolicy;
        Arguments.requirePolicy(policy);
        return db.write(tx -> {
            // ON CONFLICT: two PostgreSQL sessions adding the same actor at once find no row to lock, so the key
            // decides; an existing id inserts nothing and returns no row (SQLite's single writer sees the same).
            return tx.one(
                            "INSERT INTO actors (" + COLUMNS + ") VALUES (?, ?, ?)"
                                    + " ON CONFLICT (id) DO NOTHING RETURNING " + COLUMNS,
                            JdbcActors::map,
                            id,
                            policy,
                            tx.now())
                    .orElseThrow(() -> ActorRules.exists(id));
        });
    }

    @Override
    public Actor ensure(String id, String workspacePolicy) {
        Arguments.requireValidId(id, "actor id");
        String policy = workspacePolicy == null ? Arguments.DEFAULT_WORKSPACE_POLICY : workspacePolicy;
        Arguments.requirePolicy(policy);
        // Read first: an actor that exists costs no write transaction (and a login that may not add actors may
        // still use the ones that exist). Then the insert that a concurrent add cannot break: the key decides.
        Optional<Actor> known = find(id);
        if (known.isPresent()) {
            return known.get();
        }
        return db.write(tx -> {
            Optional<Actor> added = tx.one(
                    "INSERT INTO actors (" + COLUMNS + ") VALUES (?, ?, ?)" + " ON CONFLICT (id) DO NOTHING RETURNING "
                            + COLUMNS,
                    JdbcActors::map,
                    id,
                    policy,
                    tx.now());
            return added.isPresent() ? added.get() : requireActor(tx, id);
        });
    }

    @Override
    public Optional<Actor> find(String id) {
        return db.read(tx -> findIn(tx, id));
    }

    @Override
    public List<Actor> list() {
        return db.read(tx -> tx.query("SELECT " + COLUMNS + " FROM actors ORDER BY id", JdbcActors::map));
    }

    static Optional<Actor> findIn(JdbcReads tx, String id) throws SQLException {
        return tx.one("SELECT " + COLUMNS + " FROM actors WHERE id = ?", JdbcActors::map, id);
    }

    /** Refuses {@code unknown_actor} unless the actor exists. */
    public static Actor requireActor(JdbcTx tx, String id) throws SQLException {
        return findIn(tx, id).orElseThrow(() -> ActorRules.unknown(id));
    }
}
