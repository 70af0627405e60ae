package dev.sovereign.engine.lab;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.EngineAccess;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.spi.Backends;
import dev.sovereign.engine.spi.Grants;
import dev.sovereign.engine.spi.Ledger;
import java.util.function.Function;

/**
 * Not a test: two ways a class in the lab's package reaches the ledger beneath an engine without a call of
 * {@code EngineAccess.ledger(Engine)}, for {@code LedgerReachRuleTest} to check the ArchUnit rule against.
 */
final class LedgerReachSamples {
    private LedgerReachSamples() {}

    /** A method reference is not a method call to ArchUnit's {@code callMethod}. */
    static final class ByMethodReference {
        Ledger reach(Engine engine) {
            Function<Engine, Ledger> below = EngineAccess::ledger;
            return below.apply(engine);
        }
    }

    /** The port is public: open the backend's ledger directly, with a Grants of one's own. */
    static final class ByOpeningTheBackend {
        Ledger reach(EngineConfig config) {
            return Backends.forDatabase(config.location()).open(config, new Grants(), false);
        }
    }
}
