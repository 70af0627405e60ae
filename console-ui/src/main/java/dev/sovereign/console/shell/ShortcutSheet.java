package dev.sovereign.console.shell;

import atlantafx.base.theme.Styles;
import dev.sovereign.console.feature.lab.LabView;
import java.util.ArrayList;
import java.util.List;
import javafx.scene.Scene;
import javafx.scene.control.Label;
import javafx.scene.control.Menu;
import javafx.scene.control.MenuBar;
import javafx.scene.control.MenuItem;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.VBox;
import javafx.stage.Stage;
import javafx.stage.Window;

/**
 * Help → Keyboard shortcuts: every menu command that has a shortcut, read from the menus themselves,
 * so the sheet cannot drift from what the keys do. A small window of its own, not modal.
 */
final class ShortcutSheet {
    private ShortcutSheet() {}

    /**
     * {key, what it does} for every menu item with an accelerator, in menu order, then the keys a page reads itself
     * (the Lab page's {@link LabView#KEYS}, the keys its own handler reads).
     */
    static List<String[]> rows(MenuBar bar) {
        List<String[]> rows = new ArrayList<>();
        for (Menu m : bar.getMenus()) {
            collect(m, rows);
        }
        rows.addAll(LabView.KEYS);
        return rows;
    }

    private static void collect(Menu menu, List<String[]> rows) {
        for (MenuItem i : menu.getItems()) {
            if (i instanceof Menu sub) {
                collect(sub, rows);
            } else if (i.getAccelerator() != null) {
                rows.add(new String[] {i.getAccelerator().getDisplayText(), menu.getText() + " \u2192 " + i.getText()});
            }
        }
    }

    static Stage show(Window owner, MenuBar bar) {
        GridPane grid = new GridPane();
        grid.setId("shortcut-sheet");
        grid.setHgap(24);
        grid.setVgap(6);
        int r = 0;
        for (String[] row : rows(bar)) {
            Label key = new Label(row[0]);
            key.getStyleClass().addAll("mono", Styles.TEXT_BOLD);
            grid.add(key, 0, r);
            grid.add(new Label(row[1]), 1, r++);
        }
        Label title = new Label("Keyboard shortcuts");
        title.getStyleClass().add(Styles.TITLE_3);
        Label note = new Label("Ctrl is Cmd on macOS. In the search box, Enter goes to the first page with a match"
                + " and Escape clears it.");
        note.getStyleClass().add(Styles.TEXT_MUTED);
        note.setWrapText(true);
        VBox box = new VBox(14, title, grid, note);
        box.setStyle("-fx-padding: 20;");
        Stage stage = new Stage();
        stage.setTitle("Keyboard shortcuts \u2014 Sovereign console");
        if (owner != null) {
            stage.initOwner(owner);
        }
        Scene scene = new Scene(box);
        if (owner != null && owner.getScene() != null) {
            scene.getStylesheets().setAll(owner.getScene().getStylesheets());
        }
        stage.setScene(scene);
        stage.show();
        return stage;
    }
}
