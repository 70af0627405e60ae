package dev.sovereign.engine.testing;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.EngineAccess;
import dev.sovereign.engine.internal.sqlite.Database;
import dev.sovereign.engine.internal.sqlite.SqliteLedger;
import dev.sovereign.engine.spi.Grants;

/**
 * The SQLite backend under an engine, for tests that reach below the public API (a store's method, a
 * raw transaction, what the heartbeat believes it holds). Embedders never need this.
 */
public final class Sqlite {
    private Sqlite() {}

    public static SqliteLedger ledger(Engine engine) {
        return (SqliteLedger) EngineAccess.ledger(engine);
    }

    public static Database database(Engine engine) {
        return ledger(engine).database();
    }

    public static Grants grants(Engine engine) {
        return ledger(engine).grants();
    }
}
