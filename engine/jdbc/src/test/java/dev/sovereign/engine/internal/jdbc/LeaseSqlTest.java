package dev.sovereign.engine.internal.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.spi.SessionCheck;
import org.junit.jupiter.api.Test;

/** The lease SQL in each dialect's words; what it decides is proven on real databases in engine/it and postgres-it. */
class LeaseSqlTest {
    @Test
    void the_session_check_sql_computes_the_two_values_the_core_computes_over_the_beliefs() {
        assertThat(LeaseSql.checkColumns("token"))
                .isEqualTo("count(*), coalesce(sum(token % " + SessionCheck.P1 + "), 0)");
    }

    @Test
    void the_effective_expiry_of_an_attached_row_is_the_later_of_its_own_and_the_holder_s_beat_plus_its_ttl() {
        String expiry = LeaseSql.effective(Dialect.SQLITE, "l.", "expires_at");
        assertThat(expiry)
                .startsWith("(CASE WHEN l.attached = 1 THEN max(l.expires_at, coalesce(")
                .contains("heartbeat_at FROM processes s WHERE s.identity = l.process_identity) + l.ttl_ms")
                .endsWith("ELSE l.expires_at END)");
        String renewal = LeaseSql.effective(Dialect.POSTGRES, "l.", "renewed_at", "s.heartbeat_at");
        assertThat(renewal)
                .isEqualTo("(CASE WHEN l.attached THEN greatest(l.renewed_at, coalesce(s.heartbeat_at,"
                        + " l.renewed_at)) ELSE l.renewed_at END)");
    }
}
