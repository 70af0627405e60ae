package dev.sovereign.engine.architecture;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.Test;

/**
 * Review of 380ff59: {@code EngineLayeringTest.onlyBackendsReachBelowTheEngine} forbids only a method CALL of
 * {@code EngineAccess.ledger/grants}. A class in the lab's (or the CLI's, or the console's) package still
 * reaches the ledger by a method reference {@code EngineAccess::ledger}, or by opening the backend through
 * the public port ({@code Backends.forDatabase(l).open(config, new Grants(), false)}), and the rule stays
 * green. The samples live in the test tree (lab package) so no production code is changed to show it.
 */
class LedgerReachRuleTest {
    private static JavaClasses sample(String name) throws ClassNotFoundException {
        return new ClassFileImporter()
                .importClasses(Class.forName("dev.sovereign.engine.lab.LedgerReachSamples$" + name));
    }

    @Test
    void theRuleCatchesAMethodReferenceToEngineAccessLedger() throws Exception {
        JavaClasses lab = sample("ByMethodReference");
        assertThatThrownBy(() -> EngineLayeringTest.onlyBackendsReachBelowTheEngine.check(lab))
                .isInstanceOf(AssertionError.class);
    }

    @Test
    void theRuleCatchesTheLabOpeningABackendsLedgerThroughThePort() throws Exception {
        JavaClasses lab = sample("ByOpeningTheBackend");
        assertThatThrownBy(() -> EngineLayeringTest.onlyBackendsReachBelowTheEngine.check(lab))
                .isInstanceOf(AssertionError.class);
    }
}
