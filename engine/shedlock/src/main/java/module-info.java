/**
 * A ShedLock lock provider on the engine's public API (decision 0318): it reads only what the core exports to
 * everyone, so the compiler refuses any use of the storage port, the rule book or the internals.
 */
module dev.sovereign.shedlock {
    requires transitive dev.sovereign.engine;
    requires transitive net.javacrumbs.shedlock.core;

    exports dev.sovereign.shedlock;
}
