package dev.sovereign.console.shell;

import atlantafx.base.theme.Styles;
import dev.sovereign.engine.base.LedgerLocation;
import java.util.function.Consumer;
import javafx.collections.ListChangeListener;
import javafx.geometry.Pos;
import javafx.scene.Parent;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.layout.HBox;
import javafx.scene.layout.StackPane;
import javafx.scene.layout.VBox;

/** Shown when no database is attached: open one, pick a recent one, or start a demo. */
final class WelcomeView {
    private final ShellViewModel vm;
    private final Runnable openDialog;
    private final Consumer<LedgerLocation> openRecent;
    private final Runnable startDemo;

    WelcomeView(ShellViewModel vm, Runnable openDialog, Consumer<LedgerLocation> openRecent, Runnable startDemo) {
        this.vm = vm;
        this.openDialog = openDialog;
        this.openRecent = openRecent;
        this.startDemo = startDemo;
    }

    Parent create() {
        Label title = new Label("Sovereign console");
        title.getStyleClass().add(Styles.TITLE_1);
        Label lead = new Label("Watch leases, fencing tokens and refused writes on a Sovereign database as they"
                + " happen. Attaching only reads the file; the console writes only when you act (retry, acknowledge,"
                + " tick the supervisor), as a process of its own that stops when the action is done; only this"
                + " console's own supervisor, while you keep it on, keeps writing.");
        lead.setWrapText(true);
        lead.getStyleClass().add(Styles.TEXT_MUTED);
        Button open = new Button("Open database\u2026");
        open.setId("welcome-open");
        open.getStyleClass().add(Styles.ACCENT);
        open.setDefaultButton(true);
        open.setOnAction(e -> openDialog.run());
        Label shortcut = new Label("Ctrl+O");
        shortcut.getStyleClass().add(Styles.TEXT_SUBTLE);
        Button demo = new Button("Start demo");
        demo.setId("welcome-demo");
        demo.setOnAction(e -> startDemo.run());
        demo.disableProperty().bind(vm.demoSession().startingProperty());
        Label demoShortcut = new Label("Ctrl+D");
        demoShortcut.getStyleClass().add(Styles.TEXT_SUBTLE);
        HBox openRow = new HBox(10, open, shortcut, demo, demoShortcut);
        openRow.setAlignment(Pos.CENTER_LEFT);
        Label demoText = new Label("The demo makes a fresh database in " + DemoSession.folder()
                + " and starts real worker processes, a feeder and a supervisor: leases renew, expire and change"
                + " hands within seconds. They all stop when you close the console.");
        demoText.setWrapText(true);
        demoText.getStyleClass().add(Styles.TEXT_SUBTLE);

        Label recentTitle = new Label("Recent databases");
        recentTitle.getStyleClass().add(Styles.TITLE_4);
        VBox recent = new VBox(2);
        recent.setId("welcome-recent");
        vm.attachment().recentFiles().addListener((ListChangeListener<LedgerLocation>) c -> fillRecent(recent));
        fillRecent(recent);

        Label cli = new Label("From a terminal: 'sovereign init' creates a database, 'sovereign console --db PATH'"
                + " (or a jdbc:postgresql:// URL) opens it here.");
        cli.setWrapText(true);
        cli.getStyleClass().add(Styles.TEXT_SUBTLE);

        VBox box = new VBox(title, lead, openRow, demoText, recentTitle, recent, cli);
        box.setId("welcome");
        box.getStyleClass().add("welcome");
        StackPane center = new StackPane(box);
        StackPane.setAlignment(box, Pos.TOP_CENTER);
        return center;
    }

    private void fillRecent(VBox recent) {
        recent.getChildren().clear();
        if (vm.attachment().recentFiles().isEmpty()) {
            Label none = new Label("None yet.");
            none.getStyleClass().add(Styles.TEXT_MUTED);
            recent.getChildren().add(none);
            return;
        }
        int i = 0;
        for (LedgerLocation p : vm.attachment().recentFiles()) {
            Button b = new Button(p.toString());
            b.setId("recent-" + i++);
            b.getStyleClass().addAll(Styles.FLAT, "recent-file");
            b.setMaxWidth(Double.MAX_VALUE);
            b.setOnAction(e -> openRecent.accept(p));
            recent.getChildren().add(b);
        }
    }
}
