package dev.sovereign.console.shell;

import dev.sovereign.engine.AboutSovereign;
import javafx.geometry.Insets;
import javafx.scene.Parent;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.layout.HBox;
import javafx.scene.layout.VBox;
import javafx.stage.Modality;
import javafx.stage.Stage;
import javafx.stage.Window;

/**
 * Help > About: the same lines as {@code sovereign --version} (version, Git commit, schema version),
 * from the same source ({@link AboutSovereign}), so the two cannot disagree. A small window of its own,
 * shown without blocking the caller.
 */
final class AboutBox {
    private AboutBox() {}

    /** The box's content: a title, one label per line of {@link AboutSovereign#lines()}, and Close. */
    static Parent content(AboutSovereign about, Runnable close) {
        Label title = new Label("Sovereign");
        title.getStyleClass().add("title-3");
        VBox box = new VBox(6, title);
        int i = 0;
        for (String line : about.lines()) {
            Label l = new Label(line);
            l.setId("about-line-" + i++);
            box.getChildren().add(l);
        }
        Label what = new Label("Lease fencing on a SQLite file or a PostgreSQL server.");
        what.setId("about-what");
        Button ok = new Button("Close");
        ok.setId("about-close");
        ok.setDefaultButton(true);
        ok.setCancelButton(true);
        ok.setOnAction(e -> close.run());
        HBox buttons = new HBox(ok);
        buttons.setStyle("-fx-alignment: center-right;");
        box.getChildren().addAll(what, buttons);
        box.setPadding(new Insets(16));
        box.setId("about-box");
        return box;
    }

    static void show(Window owner) {
        Stage stage = new Stage();
        stage.setTitle("About Sovereign");
        if (owner != null) {
            stage.initOwner(owner);
            stage.initModality(Modality.WINDOW_MODAL);
        }
        Scene scene = new Scene(content(AboutSovereign.current(), stage::close));
        if (owner != null && owner.getScene() != null) {
            scene.getStylesheets().addAll(owner.getScene().getStylesheets());
        }
        stage.setScene(scene);
        stage.setResizable(false);
        stage.show();
    }
}
