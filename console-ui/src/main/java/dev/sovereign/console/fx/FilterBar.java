package dev.sovereign.console.fx;

import atlantafx.base.theme.Styles;
import dev.sovereign.console.ledger.FilterChoice;
import java.util.List;
import java.util.Locale;
import javafx.beans.property.Property;
import javafx.collections.ListChangeListener;
import javafx.collections.ObservableList;
import javafx.scene.control.ToggleButton;
import javafx.scene.control.ToggleGroup;
import javafx.scene.layout.FlowPane;
import javafx.scene.layout.Region;

/**
 * A row of pill buttons (wrapping when narrow), one per filter choice, each labelled with its count ({@code Failed 12}). When
 * only the counts change the buttons keep their place and get new text; when the choices change (a new
 * refusal category appears) the row is rebuilt. Ids: {@code <prefix><key, lower case>}. FX-thread confined.
 */
public final class FilterBar {
    private FilterBar() {}

    public static FlowPane create(String idPrefix, ObservableList<FilterChoice> choices, Property<String> selected) {
        // wraps when the window is narrow instead of widening the page
        FlowPane bar = new FlowPane(0, 4);
        bar.setId(idPrefix + "bar");
        ToggleGroup group = new ToggleGroup();
        Runnable build = () -> {
            List<FilterChoice> now = List.copyOf(choices);
            if (sameKeys(bar, now)) {
                for (int i = 0; i < now.size(); i++) {
                    ((ToggleButton) bar.getChildren().get(i)).setText(now.get(i).label());
                }
                return;
            }
            group.getToggles().clear();
            bar.getChildren().clear();
            for (int i = 0; i < now.size(); i++) {
                FilterChoice c = now.get(i);
                ToggleButton b = new ToggleButton(c.label());
                b.setUserData(c.key());
                b.setMnemonicParsing(false); // fencing_token_stale: an underscore is text here, not a mnemonic
                b.setId(idPrefix + c.key().toLowerCase(Locale.ROOT));
                b.setMinWidth(Region.USE_PREF_SIZE);
                b.setToggleGroup(group);
                b.getStyleClass()
                        .add(
                                now.size() == 1
                                        ? Styles.FLAT
                                        : i == 0
                                                ? Styles.LEFT_PILL
                                                : i == now.size() - 1 ? Styles.RIGHT_PILL : Styles.CENTER_PILL);
                b.setSelected(c.key().equals(selected.getValue()));
                b.setOnAction(e -> {
                    selected.setValue(c.key());
                    b.setSelected(true);
                });
                bar.getChildren().add(b);
            }
        };
        choices.addListener((ListChangeListener<FilterChoice>) ch -> build.run());
        selected.addListener((obs, o, key) -> bar.getChildren()
                .forEach(n -> ((ToggleButton) n).setSelected(n.getUserData().equals(key))));
        build.run();
        return bar;
    }

    private static boolean sameKeys(FlowPane bar, List<FilterChoice> now) {
        if (bar.getChildren().size() != now.size()) {
            return false;
        }
        for (int i = 0; i < now.size(); i++) {
            if (!now.get(i).key().equals(bar.getChildren().get(i).getUserData())) {
                return false;
            }
        }
        return true;
    }
}
