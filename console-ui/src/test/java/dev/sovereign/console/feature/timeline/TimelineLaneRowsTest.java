package dev.sovereign.console.feature.timeline;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import javafx.scene.Node;
import javafx.scene.shape.Rectangle;
import org.junit.jupiter.api.Test;

/**
 * The timeline replaces lane rows slot by slot only when that is safe: a node still shown in another
 * slot cannot be put in a second one (JavaFX refuses duplicate children), so then it falls back to
 * replacing them all.
 */
class TimelineLaneRowsTest {
    private final Node a = new Rectangle();
    private final Node b = new Rectangle();
    private final Node c = new Rectangle();
    private final Node fresh = new Rectangle();

    @Test
    void aChangedLaneInItsOwnSlotIsReplacedInPlace() {
        assertThat(TimelineView.inPlace(List.of(a, b, c), List.of(a, b, c))).isTrue();
        assertThat(TimelineView.inPlace(List.of(a, b, c), List.of(a, fresh, c))).isTrue();
    }

    @Test
    void aKeptLaneThatMovesOrADifferentCountReplacesThemAll() {
        // actor "a" left, a new one sorted last: b and c move up a slot
        assertThat(TimelineView.inPlace(List.of(a, b, c), List.of(b, c, fresh))).isFalse();
        assertThat(TimelineView.inPlace(List.of(a, b), List.of(a, b, c))).isFalse();
    }
}
