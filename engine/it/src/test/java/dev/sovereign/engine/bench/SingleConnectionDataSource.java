package dev.sovereign.engine.bench;

import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A DataSource that hands out one long-lived connection (its {@code close()} does nothing), the way a
 * connection pool of size one would. Without it the peer would open a new SQLite connection for every
 * statement ({@code SQLiteDataSource} does), which measures connection set-up, not locking. Not
 * thread-safe: one benchmark thread.
 */
final class SingleConnectionDataSource implements DataSource {
    private final Connection target;
    private final Connection handle;

    SingleConnectionDataSource(Connection target) {
        this.target = target;
        this.handle = (Connection) Proxy.newProxyInstance(
                Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    if (method.getName().equals("close")) {
                        return null;
                    }
                    try {
                        return method.invoke(target, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    @Override
    public Connection getConnection() {
        return handle;
    }

    @Override
    public Connection getConnection(String username, String password) {
        return handle;
    }

    Connection target() {
        return target;
    }

    @Override
    public PrintWriter getLogWriter() {
        return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {
        // no logging
    }

    @Override
    public void setLoginTimeout(int seconds) {
        // not applicable
    }

    @Override
    public int getLoginTimeout() {
        return 0;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException();
    }

    @Override
    public <T> T unwrap(Class<T> iface) {
        throw new UnsupportedOperationException();
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        return false;
    }
}
