package dev.sovereign.engine.attack;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.base.LedgerLocation;
import org.junit.jupiter.api.Test;

/**
 * Review of 9901f1c: pgjdbc (42.7) splits URL parameters on {@code &} only, so in
 * {@code ?password=abc;SECRET} or {@code ?password=abc#SECRET} the driver's password is the whole
 * {@code abc;SECRET} / {@code abc#SECRET} ({@code Driver.parseURL} gives {@code password=abc;SECRET}).
 * {@link LedgerLocation#toString()} ends the value at {@code ;} or {@code #} and prints the rest of the
 * password in clear.
 */
class UrlPasswordSeparatorLeakTest {
    @Test
    void aPasswordWithASemicolonIsHiddenWhole() {
        LedgerLocation l = LedgerLocation.parse("jdbc:postgresql://db.example/ledger?user=op&password=abc;hunter2tail");
        assertThat(l.toString()).doesNotContain("hunter2tail");
    }

    @Test
    void aPasswordWithAHashIsHiddenWhole() {
        LedgerLocation l = LedgerLocation.parse("jdbc:postgresql://db.example/ledger?user=op&password=abc#hunter2tail");
        assertThat(l.toString()).doesNotContain("hunter2tail");
    }

    @Test
    void anSslPasswordWithASemicolonIsHiddenWhole() {
        assertThat(LedgerLocation.redact("jdbc:postgresql://db.example/ledger?sslpassword=k;hunter2tail&ssl=true"))
                .doesNotContain("hunter2tail");
    }
}
