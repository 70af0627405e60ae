/**
 * The fencing engine: its API, the rule book and the storage port (decision 0016). An embedder reads the exported
 * API packages; the port ({@code spi}) and the rule book ({@code rules}) are exported only to the modules that
 * implement or must speak with the engine's own voice; {@code internal} to no one.
 */
module dev.sovereign.engine {
    exports dev.sovereign.engine;
    exports dev.sovereign.engine.actor;
    exports dev.sovereign.engine.admin;
    exports dev.sovereign.engine.base;
    exports dev.sovereign.engine.journal;
    exports dev.sovereign.engine.lease;
    exports dev.sovereign.engine.mailbox;
    exports dev.sovereign.engine.process;
    exports dev.sovereign.engine.provider;
    exports dev.sovereign.engine.run;
    exports dev.sovereign.engine.supervisor;
    exports dev.sovereign.engine.worker;

    // The storage port: for the store layer and the backends that implement it.
    exports dev.sovereign.engine.spi to
            dev.sovereign.engine.jdbc,
            dev.sovereign.engine.sqlite,
            dev.sovereign.engine.postgres;
    // Backup, restore and copy: the port's operator tools, for the backends and the CLI's commands (decision 0016).
    exports dev.sovereign.engine.spi.tools to
            dev.sovereign.engine.sqlite,
            dev.sovereign.engine.postgres,
            dev.sovereign.engine.cli;
    // The rule book: the backends ask it, and the CLI and the lab check their arguments with its sentences, so
    // bad input reads the same wherever it is typed (decision 0016).
    exports dev.sovereign.engine.rules to
            dev.sovereign.engine.jdbc,
            dev.sovereign.engine.sqlite,
            dev.sovereign.engine.postgres,
            dev.sovereign.engine.lab,
            dev.sovereign.engine.cli;

    uses dev.sovereign.engine.spi.StorageBackend;
}
