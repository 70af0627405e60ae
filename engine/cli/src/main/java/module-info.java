/** The {@code sovereign} command: a client of the engine's API, the lab and the port's operator tools. */
module dev.sovereign.engine.cli {
    requires dev.sovereign.engine;
    requires dev.sovereign.engine.lab;
    requires info.picocli;
    requires com.fasterxml.jackson.databind;
    // sovereign metrics: the Prometheus client's model, text format and HTTP server (decision 0319)
    requires io.prometheus.metrics.model;
    requires io.prometheus.metrics.config;
    requires io.prometheus.writer.text;
    requires io.prometheus.metrics.exporter.httpserver;
    requires jdk.httpserver;
    requires jdk.unsupported; // sun.misc.Signal: SIGTERM and SIGINT end a worker cleanly

    exports dev.sovereign.engine.cli;

    opens dev.sovereign.engine.cli to
            info.picocli,
            com.fasterxml.jackson.databind;
}
