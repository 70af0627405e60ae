/**
 * A ShedLock lock provider on the engine's public API (decision 0318): it reads only what the core exports to
 * everyone, so the compiler refuses any use of the storage port, the rule book or the internals.
 */
// ShedLock ships no module file; its jar names its module (Automatic-Module-Name), a name it keeps. Transitive,
// because the provider's signatures are ShedLock's types.
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module dev.sovereign.shedlock {
    requires transitive dev.sovereign.engine;
    requires transitive net.javacrumbs.shedlock.core;

    exports dev.sovereign.shedlock;
}
