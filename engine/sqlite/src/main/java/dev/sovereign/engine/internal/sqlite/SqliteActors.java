package dev.sovereign.engine.internal.sqlite;


import dev.sovereign.engine.internal.jdbc.JdbcTx;
import dev.sovereign.engine.rules.ActorRules;
import dev.sovereign.engine.rules.Arguments;
import dev.sovereign.engine.actor.Actor;
import dev.sovereign.engine.actor.Actors;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/** The actor registry on the {@code actors} table. Thread-safe. */
public final class SqliteActors implements Actors {
    private final Database db;

    public SqliteActors(Database db) {
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
            if (findIn(tx, id).isPresent()) {
                throw ActorRules.exists(id);
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

    static Optional<Actor> findIn(JdbcTx tx, String id) throws SQLException {
        return tx.one("SELECT id, workspace_policy, created_at FROM actors WHERE id = ?", SqliteActors::map, id);
    }

    /** Refuses {@code unknown_actor} unless the actor exists. */
    public static Actor requireActor(JdbcTx tx, String id) throws SQLException {
        return findIn(tx, id).orElseThrow(() -> ActorRules.unknown(id));
    }
}
