package dev.sovereign.console.shell;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import javafx.geometry.Rectangle2D;
import org.junit.jupiter.api.Test;

/** Issue 31, item 2: where the window opens, as arithmetic on the screen's visual bounds and what was remembered. */
class WindowPlacementTest {
    private static final Rectangle2D SMALL = new Rectangle2D(0, 0, 1024, 700);
    private static final Rectangle2D LARGE = new Rectangle2D(0, 0, 2560, 1400);

    @Test
    void onAScreenSmallerThanPreferredTheWindowTakesTheScreenNeverANegativeOrigin() {
        WindowPlacement p = WindowPlacement.choose(SMALL, Optional.empty());
        assertThat(p).isEqualTo(new WindowPlacement(0, 0, 1024, 700, false));
        assertThat(p.fitsIn(SMALL)).isTrue();
    }

    @Test
    void onALargerScreenThePreferredSizeIsCentred() {
        WindowPlacement p = WindowPlacement.choose(LARGE, Optional.empty());
        assertThat(p).isEqualTo(new WindowPlacement(620, 290, 1320, 820, false));
    }

    @Test
    void aTaskBarOnTheLeftOrTopMovesTheOriginInsideTheVisualBounds() {
        Rectangle2D visual = new Rectangle2D(48, 32, 1000, 760);
        WindowPlacement p = WindowPlacement.choose(visual, Optional.empty());
        assertThat(p).isEqualTo(new WindowPlacement(48, 32, 1000, 760, false));
        assertThat(WindowPlacement.choose(new Rectangle2D(-1920, 0, 1920, 1040), Optional.empty()))
                .as("a screen left of the primary: inside it, not at the negative x of the old fixed size")
                .isEqualTo(new WindowPlacement(-1620, 110, 1320, 820, false));
    }

    @Test
    void aRememberedPlacementThatFitsIsRestored() {
        WindowPlacement remembered = new WindowPlacement(100, 80, 1100, 640, false);
        assertThat(WindowPlacement.choose(LARGE, Optional.of(remembered))).isEqualTo(remembered);
        assertThat(WindowPlacement.choose(SMALL, Optional.of(new WindowPlacement(0, 0, 1024, 700, false))))
                .as("exactly the screen fits")
                .isEqualTo(new WindowPlacement(0, 0, 1024, 700, false));
    }

    @Test
    void aRememberedPlacementThatDoesNotFitThisScreenIsNotRestored() {
        // remembered on a larger screen: too big, or placed beyond this screen's edge, or at a negative origin
        for (WindowPlacement r : new WindowPlacement[] {
            new WindowPlacement(0, 0, 1320, 820, false),
            new WindowPlacement(1600, 900, 800, 500, false),
            new WindowPlacement(-148, -40, 900, 600, false),
            new WindowPlacement(10, 10, 0, 0, false)
        }) {
            assertThat(WindowPlacement.choose(SMALL, Optional.of(r)))
                    .as("%s on 1024x700", r)
                    .isEqualTo(new WindowPlacement(0, 0, 1024, 700, false));
        }
    }

    @Test
    void aMaximisedWindowOpensMaximisedWithBoundsThatFit() {
        WindowPlacement fits = new WindowPlacement(100, 80, 1100, 640, true);
        assertThat(WindowPlacement.choose(LARGE, Optional.of(fits))).isEqualTo(fits);
        WindowPlacement tooBig = new WindowPlacement(0, 0, 2400, 1300, true);
        assertThat(WindowPlacement.choose(SMALL, Optional.of(tooBig)))
                .isEqualTo(new WindowPlacement(0, 0, 1024, 700, true));
    }
}
