/** The {@code sovereign} command: a client of the engine's API, the lab and the port's operator tools. */
module dev.sovereign.engine.cli {
    requires dev.sovereign.engine;
    requires dev.sovereign.engine.lab;
    requires info.picocli;
    requires com.fasterxml.jackson.databind;
    requires jdk.unsupported; // sun.misc.Signal: SIGTERM and SIGINT end a worker cleanly

    exports dev.sovereign.engine.cli;

    opens dev.sovereign.engine.cli to
            info.picocli,
            com.fasterxml.jackson.databind;
}
