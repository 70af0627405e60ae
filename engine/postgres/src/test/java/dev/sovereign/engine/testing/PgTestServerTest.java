package dev.sovereign.engine.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

class PgTestServerTest {
    @Test
    void eachCallerGetsAnEmptyDatabaseOfItsOwnOnOneServer() throws Exception {
        PgTestServer.Database one = PgTestServer.freshDatabase();
        PgTestServer.Database two = PgTestServer.freshDatabase();
        assertThat(one.name()).isNotEqualTo(two.name());
        assertThat(one.port()).isEqualTo(two.port());
        try (Connection c = one.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT current_database(), (SELECT count(*) FROM pg_class c"
                        + " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public')")) {
            rs.next();
            assertThat(rs.getString(1)).isEqualTo(one.name());
            assertThat(rs.getLong(2)).isZero();
        }
    }
}
