package dev.sovereign.engine.attack;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.LedgerLocation;
import org.junit.jupiter.api.Test;

/**
 * Review of 9901f1c: the user-info pattern {@code (//[^/@:?#]*:)[^/@?#]*@} stops at the first {@code /} or
 * {@code @} of the password, so a password typed with a raw {@code /} is not hidden at all and one with a
 * raw {@code @} is hidden only up to it; {@code EngineConfig.defaultDataDirectory} strips user-info with
 * {@code ^[^@/]*@} and puts the rest of the password into the data directory's name, which {@code status}
 * and the console show.
 */
class UrlUserInfoLeakTest {
    @Test
    void aUserInfoPasswordWithASlashIsHidden() {
        assertThat(LedgerLocation.parse("jdbc:postgresql://op:pa/hunter2tail@db.example/ledger")
                        .toString())
                .doesNotContain("hunter2tail");
    }

    @Test
    void aUserInfoPasswordWithAnAtSignIsHiddenWhole() {
        assertThat(LedgerLocation.parse("jdbc:postgresql://op:pa@hunter2tail@db.example/ledger")
                        .toString())
                .doesNotContain("hunter2tail");
    }

    @Test
    void theServerDataDirectoryNamesNoPartOfTheUserInfoPassword() {
        assertThat(EngineConfig.defaultDataDirectory(
                                LedgerLocation.parse("jdbc:postgresql://op:pa@hunter2tail@db.example/ledger"))
                        .toString())
                .doesNotContain("hunter2tail");
        assertThat(EngineConfig.defaultDataDirectory(
                                LedgerLocation.parse("jdbc:postgresql://op:pa/hunter2tail@db.example/ledger"))
                        .toString())
                .doesNotContain("hunter2tail");
    }
}
