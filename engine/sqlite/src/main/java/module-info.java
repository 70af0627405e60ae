/** The embedded default backend: one SQLite file. Found by the core through the storage port. */
module dev.sovereign.engine.sqlite {
    requires dev.sovereign.engine;
    requires dev.sovereign.engine.jdbc;
    requires java.sql;
    requires org.xerial.sqlitejdbc;

    provides dev.sovereign.engine.spi.StorageBackend with
            dev.sovereign.engine.internal.sqlite.SqliteBackend;
}
