package dev.sovereign.engine.attack;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.base.LedgerLocation;
import org.junit.jupiter.api.Test;

/**
 * Review of 9901f1c: LedgerLocation's javadoc and docs/security.md promise that {@code *token*} and
 * {@code *secret*} parameters are hidden, but the pattern is {@code [a-z]*token=} / {@code [a-z]*secret=}:
 * a name with {@code _}, {@code -} or a digit ({@code access_token}, {@code client_secret}), or with the
 * word not at its end ({@code tokenValue}, {@code secretKey}), is printed in clear.
 */
class UrlSecretParameterNamesTest {
    @Test
    void aTokenOrSecretParameterWithAnUnderscoreIsHidden() {
        String shown = LedgerLocation.parse(
                        "jdbc:postgresql://db.example/ledger?access_token=tok-planted&client_secret=sec-planted")
                .toString();
        assertThat(shown).doesNotContain("tok-planted").doesNotContain("sec-planted");
    }

    @Test
    void aParameterWithTokenOrSecretInsideItsNameIsHidden() {
        String shown = LedgerLocation.parse(
                        "jdbc:postgresql://db.example/ledger?tokenValue=tok-planted&secretKey=sec-planted")
                .toString();
        assertThat(shown).doesNotContain("tok-planted").doesNotContain("sec-planted");
    }
}
