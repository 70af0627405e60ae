package dev.sovereign.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.LedgerLocation;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** What a user typed as the database: a path or a URL, and never a secret shown back. */
class LedgerLocationTest {
    @Test
    void aPathIsAbsoluteAndNormalizedAndShownAsIs() {
        LedgerLocation l = LedgerLocation.parse("a/../work.db");
        assertThat(l.isFile()).isTrue();
        assertThat(l.file()).contains(Path.of("work.db").toAbsolutePath());
        assertThat(l.toString())
                .isEqualTo(l.text())
                .isEqualTo(Path.of("work.db").toAbsolutePath().toString());
    }

    @Test
    void aUrlKeepsItsDoubleSlashAndIsHandedToTheDriverVerbatim() {
        String url = "jdbc:postgresql://h1:5432,h2:5432/ledger?sslmode=verify-full&password=p%40ss";
        LedgerLocation l = LedgerLocation.parse(url);
        assertThat(l.isFile()).isFalse();
        assertThat(l.file()).isEmpty();
        assertThat(l.text()).isEqualTo(url);
    }

    @Test
    void everyPasswordAndTokenIsHiddenWhenShown() {
        assertThat(LedgerLocation.parse("jdbc:postgresql://op:s3cret@db/ledger?sslmode=require")
                        .toString())
                .isEqualTo("jdbc:postgresql://op:***@db/ledger?sslmode=require");
        assertThat(LedgerLocation.parse("jdbc:postgresql://db/ledger?user=op&password=s3cret&ssl=true")
                        .toString())
                .isEqualTo("jdbc:postgresql://db/ledger?user=op&password=***&ssl=true");
        // the driver splits parameters on & only: ";sslpassword=b" is part of PASSWORD's value, hidden with it
        assertThat(LedgerLocation.parse("JDBC:postgresql://db/l?PASSWORD=a;sslpassword=b&authToken=c")
                        .toString())
                .doesNotContain("=a")
                .doesNotContain("=b")
                .doesNotContain("=c")
                .isEqualTo("JDBC:postgresql://db/l?PASSWORD=***&authToken=***");
        assertThat(LedgerLocation.parse("jdbc:postgresql://db/ledger?user=op").toString())
                .isEqualTo("jdbc:postgresql://db/ledger?user=op");
    }

    @Test
    void nothingTypedIsOneSentence() {
        assertThatThrownBy(() -> LedgerLocation.parse(" "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("A database must be a file path or a jdbc: URL, got nothing.");
        assertThatThrownBy(() -> LedgerLocation.parse("bad\0name"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("'bad\0name' is neither a usable file path nor a jdbc: URL");
    }

    @Test
    void aServerLedgerKeepsItsWorkspacesInAFolderOfThisHostsUser() {
        Path dir = EngineConfig.defaultDataDirectory(
                LedgerLocation.parse("jdbc:postgresql://op:pw@db.example:5432/ledger?x=1"));
        assertThat(dir)
                .isEqualTo(Path.of(
                        System.getProperty("user.home"),
                        ".local",
                        "share",
                        "sovereign",
                        "db.example-5432-ledger.data"));
        assertThat(dir.toString()).doesNotContain("pw");
    }

    @Test
    void whatMayBeRememberedHasEverySecretRemovedAndStillOpensTheSameServer() {
        assertThat(LedgerLocation.parse("jdbc:postgresql://db/ledger?user=ops&password=s3cret&sslmode=verify-full")
                        .withoutSecrets()
                        .text())
                .isEqualTo("jdbc:postgresql://db/ledger?user=ops&sslmode=verify-full");
        assertThat(LedgerLocation.parse("jdbc:postgresql://db/ledger?password=s3cret&user=ops&apiToken=t0k")
                        .withoutSecrets()
                        .text())
                .isEqualTo("jdbc:postgresql://db/ledger?user=ops");
        assertThat(LedgerLocation.parse("jdbc:postgresql://ops:s3cret@db/ledger")
                        .withoutSecrets()
                        .text())
                .isEqualTo("jdbc:postgresql://ops@db/ledger");
        assertThat(LedgerLocation.parse("jdbc:postgresql://db/ledger?password=s3cret")
                        .withoutSecrets()
                        .text())
                .isEqualTo("jdbc:postgresql://db/ledger");
        LedgerLocation plain = LedgerLocation.parse("jdbc:postgresql://db/ledger?user=ops");
        assertThat(plain.withoutSecrets()).isEqualTo(plain);
        assertThat(plain.hasSecrets()).isFalse();
        assertThat(LedgerLocation.parse("jdbc:postgresql://db/ledger?password=x")
                        .hasSecrets())
                .isTrue();
    }
}
