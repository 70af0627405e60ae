package dev.sovereign.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine.TypeConversionException;

class ConvertersTest {
    private final Converters.DurationConverter durations = new Converters.DurationConverter();
    private final Converters.TokenConverter tokens = new Converters.TokenConverter();

    @ParameterizedTest
    @CsvSource({"500ms, 500", "30s, 30000", "5m, 300000", "1h, 3600000", "1ms, 1", "7d, 604800000"})
    void durationsAcceptMillisecondsSecondsMinutesAndHours(String text, long millis) {
        assertThat(durations.convert(text)).isEqualTo(Duration.ofMillis(millis));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "30", "s", "5 m", "-1s", "0s", "0ms", "1.5s", "5w", "PT5S", "5M", "30sec", "1h30m"})
    void anythingElseIsNotADuration(String text) {
        assertThatThrownBy(() -> durations.convert(text))
                .isInstanceOf(TypeConversionException.class)
                .hasMessageStartingWith("'" + text + "' is ");
    }

    @ParameterizedTest
    @ValueSource(strings = {"1", "42", "9223372036854775807"})
    void tokensArePositiveWholeNumbers(String text) {
        assertThat(tokens.convert(text)).isEqualTo(Long.parseLong(text));
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "-1", "abc", "1.0", "", "9223372036854775808", "0x10"})
    void anythingElseIsNotAToken(String text) {
        assertThatThrownBy(() -> tokens.convert(text)).isInstanceOf(TypeConversionException.class);
    }
}
