package dev.sovereign.console.testing;

import dev.sovereign.console.shell.ConsoleTheme;
import dev.sovereign.console.shell.ThemeManager;
import javafx.scene.Parent;
import javafx.scene.Scene;
import javafx.stage.Stage;

/** Shows one view alone in a themed scene, as a TestFX {@code @Start} method would. */
public final class ViewHarness {
    private ViewHarness() {}

    public static Scene show(Stage stage, Parent view) {
        Scene scene = new Scene(view, 1280, 760);
        scene.getStylesheets().add(ThemeManager.consoleStylesheet());
        ThemeManager.apply(ConsoleTheme.LIGHT);
        stage.setScene(scene);
        stage.show();
        return scene;
    }
}
