package dev.sovereign.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.admin.ConnectionSecurity;
import dev.sovereign.engine.admin.ConnectionSecurity.Kind;
import dev.sovereign.engine.admin.ConnectionSecurity.Verification;
import dev.sovereign.engine.base.LedgerLocation;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Decision 0906: {@code sovereign init} warns once when the URL every host will copy reaches a server on another
 * machine without a verified certificate and host name; a loopback server, a file and {@code verify-full} do not.
 * (The end-to-end runs are in {@link CliTlsOnPostgresTest}; the test servers are all on loopback, so the
 * decision for other hosts is checked here on the values {@code init} decides from.)
 */
class InitUnverifiedWarningTest {
    private static final ConnectionSecurity PLAIN =
            new ConnectionSecurity(Kind.NOT_ENCRYPTED, null, null, "prefer", Verification.NONE);
    private static final ConnectionSecurity REQUIRE =
            new ConnectionSecurity(Kind.TLS, "TLSv1.3", "TLS_AES_256_GCM_SHA384", "require", Verification.NONE);
    private static final ConnectionSecurity FULL = new ConnectionSecurity(
            Kind.TLS, "TLSv1.3", "TLS_AES_256_GCM_SHA384", "verify-full", Verification.CERTIFICATE_AND_HOST);

    private static LedgerLocation url(String hosts) {
        return LedgerLocation.parse("jdbc:postgresql://" + hosts + "/ledger?user=host_a&password=s3cret");
    }

    @Test
    void aServerOnAnotherHostWithoutVerifyFullIsWarnedAboutWithTheFix() {
        assertThat(InitCommand.unverifiedWarning(url("db.example:5432"), PLAIN))
                .get()
                .asString()
                .contains("not encrypted (sslmode=prefer)", "sslmode=verify-full&sslrootcert=")
                .doesNotContain("s3cret");
        assertThat(InitCommand.unverifiedWarning(url("db.example"), REQUIRE))
                .get()
                .asString()
                .contains("certificate not verified (sslmode=require)");
        assertThat(InitCommand.unverifiedWarning(url("localhost:5432,db.example:5432"), PLAIN))
                .isPresent();
        assertThat(InitCommand.unverifiedWarning(url("10.0.0.7"), PLAIN)).isPresent();
    }

    @Test
    void verifyFullALoopbackServerAndAFileAreNot() {
        assertThat(InitCommand.unverifiedWarning(url("db.example:5432"), FULL)).isEmpty();
        assertThat(InitCommand.unverifiedWarning(url("localhost:5432"), PLAIN)).isEmpty();
        assertThat(InitCommand.unverifiedWarning(url("127.0.0.1"), PLAIN)).isEmpty();
        assertThat(InitCommand.unverifiedWarning(url("[::1]:5432"), PLAIN)).isEmpty();
        assertThat(InitCommand.unverifiedWarning(
                        LedgerLocation.file(Path.of("/tmp/x.db")), ConnectionSecurity.LOCAL_FILE))
                .isEmpty();
    }
}
