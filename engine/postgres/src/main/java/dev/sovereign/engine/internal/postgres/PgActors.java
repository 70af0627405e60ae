package dev.sovereign.engine.internal.postgres;


import dev.sovereign.engine.internal.jdbc.JdbcTx;
import dev.sovereign.engine.rules.ActorRules;
import dev.sovereign.engine.rules.Arguments;
import dev.sovereign.engine.actor.Actor;
import dev.sovereign.engine.actor.Actors;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/** The actor registry on the {@code actors} table (PostgreSQL). Thread-safe. */
public final class PgActors implements Actors {
    private final PgDatabase db;

    public PgActors(PgDatabase db) {
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
            // ON CONFLICT: two processes adding the same actor at once find no row to lock; the key decides.
            return tx.one("INSERT INTO actors (id, workspace_policy, created_at) VALUES (?, ?, ?)"
                            + " ON CONFLICT (id) DO NOTHING RETURNING id, workspace_policy, created_at",
                    PgActors::map, id, policy, tx.now()).orElseThrow(() -> ActorRules.exists(id));
        });
    }

    @Override
    public Optional<Actor> find(String id) {
        return db.read(tx -> findIn(tx, id));
    }

    @Override
    public List<Actor> list() {
        return db.read(tx -> tx.query("SELECT id, workspace_policy, created_at FROM actors ORDER BY id",
                PgActors::map));
    }

    static Optional<Actor> findIn(JdbcTx tx, String id) throws SQLException {
        return tx.one("SELECT id, workspace_policy, created_at FROM actors WHERE id = ?", PgActors::map, id);
    }

    /** Refuses {@code unknown_actor} unless the actor exists. */
    public static Actor requireActor(JdbcTx tx, String id) throws SQLException {
        return findIn(tx, id).orElseThrow(() -> ActorRules.unknown(id));
    }
}
