package dev.sovereign.console.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.fx.SortedRows;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The search's matching rule and the tables' natural text order, without a toolkit. */
class SearchTest {
    private static final long[] TOKEN_5 = {5};

    @Test
    void digitsFindATokenAndNamesThatContainThem() {
        assertThat(Search.matches("5", TOKEN_5, "operator")).isTrue();
        assertThat(Search.matches("7101", new long[] {3}, "worker 7101")).isTrue();
        assertThat(Search.matches("15", TOKEN_5, "operator"))
                .as("no substring of a token")
                .isFalse();
    }

    @Test
    void aHashOrTheWordTokenFindsTokensOnly() {
        assertThat(Search.matches("#5", TOKEN_5, "asg_77")).isTrue();
        assertThat(Search.matches("token 5", TOKEN_5)).isTrue();
        assertThat(Search.matches("#5", new long[] {6}, "worker 5")).isFalse();
    }

    @Test
    void namesMatchCaseInsensitivelyAndABlankQueryMatchesEverything() {
        assertThat(Search.matches("PROC_3F", new long[0], "proc_3f2a1b9c")).isTrue();
        assertThat(Search.matches("  ", new long[0])).isTrue();
        assertThat(Search.matches("reviewer", new long[0], "operator", null)).isFalse();
    }

    @Test
    void textSortsAsPeopleReadItNumbersByValueAndNothingLast() {
        List<String> texts = new ArrayList<>(List.of("10", "\u2014", "9", "pid 7101", "pid 812", "Beta", "alpha", ""));
        texts.sort(SortedRows.NATURAL);
        assertThat(texts).containsExactly("9", "10", "alpha", "Beta", "pid 812", "pid 7101", "\u2014", "");
    }
}
