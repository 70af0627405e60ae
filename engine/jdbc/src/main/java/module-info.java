/** The stores both backends share, written once against JdbcTx and a Dialect (decision 0014). */
module dev.sovereign.engine.jdbc {
    requires transitive dev.sovereign.engine;
    requires transitive java.sql;

    exports dev.sovereign.engine.internal.jdbc to
            dev.sovereign.engine.sqlite,
            dev.sovereign.engine.postgres;
}
