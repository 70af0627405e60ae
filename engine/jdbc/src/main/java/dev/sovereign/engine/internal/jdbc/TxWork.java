package dev.sovereign.engine.internal.jdbc;

import java.sql.SQLException;

/** A body of work inside one transaction of a shared store. It may run more than once (a busy retry). */
@FunctionalInterface
public interface TxWork<T> {
    T run(JdbcTx tx) throws SQLException;
}
