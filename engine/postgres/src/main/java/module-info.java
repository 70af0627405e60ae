/** The PostgreSQL backend: the same contract on a server. Found by the core through the storage port. */
module dev.sovereign.engine.postgres {
    requires dev.sovereign.engine;
    requires dev.sovereign.engine.jdbc;
    requires java.sql;
    requires org.postgresql.jdbc;

    provides dev.sovereign.engine.spi.StorageBackend with
            dev.sovereign.engine.internal.postgres.PostgresBackend;
}
