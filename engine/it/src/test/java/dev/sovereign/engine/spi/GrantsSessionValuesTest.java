package dev.sovereign.engine.spi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.lease.Lease;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link Grants} keeps the session check's values over its beliefs as leases come and go (decision 0509), so a beat
 * does not recompute them over every lease it keeps: after any sequence of grants, replacements, drops (right and
 * wrong token) and losses they must be the values recomputed from scratch over the tokens believed — a value off by
 * one lease would make every beat read every row, or, worse, hide a lost lease until the next full comparison.
 */
class GrantsSessionValuesTest {
    @Test
    void theKeptValuesAreAlwaysThoseOfTheBelievedTokens() {
        Grants grants = new Grants();
        Random random = new Random(509);
        long token = 4_294_967_000L; // around P1, so residues wrap as they will for a long-lived ledger
        for (int step = 0; step < 20_000; step++) {
            String actor = "actor-" + random.nextInt(50);
            Lease believed = grants.lease(actor);
            switch (random.nextInt(4)) {
                case 0, 1 -> grants.holdLease(lease(actor, ++token)); // a grant, or a takeover by this process
                case 2 ->
                    grants.dropLease(actor, believed != null && random.nextBoolean() ? believed.token() : token + 1);
                default -> {
                    if (believed != null) {
                        grants.leaseLost(actor, believed.token());
                    }
                }
            }
            Grants.Beliefs beliefs = grants.beliefs();
            assertThat(beliefs.values())
                    .as("after step %d", step)
                    .containsExactly(SessionCheck.of(
                            beliefs.leases().stream().map(Lease::token).toList()));
        }
    }

    @Test
    void aReplacedLeaseCountsOnceWithItsNewToken() {
        Grants grants = new Grants();
        grants.holdLease(lease("a", 7));
        grants.holdLease(lease("a", 9));
        assertThat(grants.beliefs().values()).containsExactly(SessionCheck.of(List.of(9L)));
    }

    private static Lease lease(String actor, long token) {
        return new Lease(actor, "me", token, 10_000, 0, 0, 10_000, true);
    }
}
