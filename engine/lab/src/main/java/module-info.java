/** The lab: scenarios, the demo and the worker processes a trainer starts; a client of the engine's API. */
module dev.sovereign.engine.lab {
    requires transitive dev.sovereign.engine;
    requires jdk.unsupported; // sun.misc.Signal: a worker process stops cleanly on SIGTERM and SIGINT

    exports dev.sovereign.engine.lab;
}
