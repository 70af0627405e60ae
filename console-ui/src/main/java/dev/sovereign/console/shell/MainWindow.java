package dev.sovereign.console.shell;

import atlantafx.base.controls.Message;
import atlantafx.base.theme.Styles;
import dev.sovereign.console.feature.actor.ActorPageView;
import dev.sovereign.console.feature.journal.JournalView;
import dev.sovereign.console.feature.lab.LabView;
import dev.sovereign.console.feature.leases.LeasesView;
import dev.sovereign.console.feature.mailbox.MailboxView;
import dev.sovereign.console.feature.process.ProcessPageView;
import dev.sovereign.console.feature.processes.ProcessesView;
import dev.sovereign.console.feature.rejections.RejectionsView;
import dev.sovereign.console.feature.runs.RunsView;
import dev.sovereign.console.feature.supervisor.SupervisorView;
import dev.sovereign.console.feature.timeline.TimelineView;
import dev.sovereign.console.feature.trends.TrendsView;
import dev.sovereign.console.fx.LinkedSentence;
import dev.sovereign.console.fx.Ui;
import dev.sovereign.engine.base.LedgerLocation;
import java.io.File;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Map;
import java.util.function.Consumer;
import javafx.application.Platform;
import javafx.beans.binding.Bindings;
import javafx.beans.value.ChangeListener;
import javafx.beans.value.ObservableValue;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.Parent;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ProgressIndicator;
import javafx.scene.control.TextField;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.StackPane;
import javafx.scene.layout.VBox;
import javafx.stage.FileChooser;
import javafx.stage.Window;

/**
 * The main window: the menu bar ({@link ShellMenuBar}, with every keyboard shortcut), the demo strip, the banner,
 * the navigation and search ({@link NavigationPane}), the current page (or the welcome page, or "Opening…") and the
 * status bar ({@link StatusBar}); and the dialogs that open a file or a server and export the journal.
 * Thin: every decision is the {@link ShellViewModel}'s.
 */
public final class MainWindow {
    private final ShellViewModel vm;
    private final Runnable quit;
    private final Map<Page, Node> pages = new EnumMap<>(Page.class);
    private final StackPane content = new StackPane();
    private Node welcome;
    private Node connecting;

    private final Consumer<String> browser;

    public MainWindow(ShellViewModel vm, Runnable quit) {
        this(vm, quit, address -> {});
    }

    /** {@code browser} opens a document's address (the app's {@code HostServices.showDocument}). */
    public MainWindow(ShellViewModel vm, Runnable quit, Consumer<String> browser) {
        this.vm = vm;
        this.quit = quit;
        this.browser = browser;
    }

    /** Builds the whole window's content. */
    public Parent create() {
        BorderPane root = new BorderPane();
        root.setId("main-window");
        ShellMenuBar menus = new ShellMenuBar(
                vm,
                quit,
                browser,
                this::window,
                this::openWithDialog,
                this::openServerWithDialog,
                this::exportWithDialog,
                this::focusSearch);
        root.setTop(new VBox(menus.create(), demoStrip(), banner()));
        root.setLeft(new NavigationPane(vm).create());
        content.setId("content");
        root.setCenter(content);
        root.setBottom(new StatusBar(vm).create());
        welcome = new WelcomeView(vm, this::openWithDialog, vm::attach, vm::startDemo).create();
        connecting = connectingPane();
        vm.pageProperty().addListener((obs, o, p) -> showContent());
        vm.attachedLocationProperty().addListener((obs, o, p) -> showContent());
        vm.attachment().attachingLocationProperty().addListener((obs, o, p) -> showContent());
        vm.demoSession().startingProperty().addListener((obs, o, p) -> showContent());
        showContent();
        return root;
    }

    /** Adds the console stylesheet and applies (and follows) the theme. Call once the scene exists. */
    public void install(Scene scene) {
        // JavaFX gives the first focus to the first field it finds, the search box; the page gets it instead
        // (see focusInto). Once: a later click into the search box stays there.
        scene.focusOwnerProperty().addListener(new ChangeListener<Node>() {
            @Override
            public void changed(ObservableValue<? extends Node> obs, Node was, Node now) {
                if (was == null && now != null) {
                    scene.focusOwnerProperty().removeListener(this);
                    if (!content.getChildren().isEmpty()) {
                        Platform.runLater(() -> focusInto(content.getChildren().get(0)));
                    }
                }
            }
        });
        scene.getStylesheets().add(ThemeManager.consoleStylesheet());
        ThemeManager.apply(vm.themeProperty().get());
        vm.themeProperty().addListener((obs, o, t) -> ThemeManager.apply(t));
    }

    private void showContent() {
        Node show;
        if (vm.attachedLocationProperty().get() != null) {
            show = pages.computeIfAbsent(vm.pageProperty().get(), this::createPage);
        } else if (vm.attachment().attachingLocationProperty().get() != null
                || vm.demoSession().startingProperty().get()) {
            show = connecting;
        } else {
            show = welcome;
        }
        if (content.getChildren().size() != 1 || content.getChildren().get(0) != show) {
            content.getChildren().setAll(show);
            focusInto(show);
        }
    }

    /**
     * Gives the keyboard to the page just shown (its first table, else the page) unless the operator is typing a
     * search. Left where JavaFX puts it on start, the focus sits in the empty search box, whose blinking caret
     * runs the scene's pulse — CSS, layout and a render — 60 times a second while nothing changes (issue 17,
     * item 15: that was most of an idle console's CPU). Ctrl+F still goes to the search box.
     */
    private void focusInto(Node page) {
        Scene scene = content.getScene();
        if (scene == null) {
            return;
        }
        Node owner = scene.getFocusOwner();
        boolean typingASearch = owner instanceof TextField f
                && "search-field".equals(f.getId())
                && !f.getText().isEmpty();
        boolean stillShown = owner != null && owner.getScene() == scene; // not on the page just taken away
        if (stillShown && owner != scene.lookup("#search-field") || typingASearch) {
            return; // a button, a table, a field of a dialog row: where the operator put it
        }
        page.applyCss(); // a page shown for the first time has no skins yet: a split pane's table is not a child before
        Node table = page.lookup(".table-view");
        (table != null ? table : page).requestFocus();
    }

    private Node createPage(Page p) {
        ShellNavigation links = vm.navigation(); // where a link in a page goes
        return switch (p) {
            case LEASES -> new LeasesView(vm.leases(), vm.formats(), links).create();
            case TIMELINE -> new TimelineView(vm.timeline(), links).create();
            case REJECTIONS -> new RejectionsView(vm.rejections(), links).create();
            case RUNS -> new RunsView(vm.runs(), vm.formats(), links).create();
            case MAILBOX -> new MailboxView(vm.mailbox(), vm.formats(), links).create();
            case PROCESSES ->
                new ProcessesView(
                                vm.processes(),
                                vm.formats(),
                                links,
                                vm.stopping().processesPage())
                        .create();
            case SUPERVISOR -> new SupervisorView(vm.supervisor(), links).create();
            case LAB -> new LabView(vm.lab()).create();
            case TRENDS -> new TrendsView(vm.trends(), vm.formats(), links).create();
            case JOURNAL ->
                new JournalView(
                                vm.journal(),
                                vm.formats(),
                                links,
                                this::exportWithDialog,
                                vm.journalExport().exportingProperty())
                        .create();
            case ACTOR -> new ActorPageView(vm.actorPage(), links, backForward("actor")).create();
            case PROCESS -> new ProcessPageView(vm.processPage(), links, backForward("process")).create();
        };
    }

    private Node backForward(String id) {
        ShellNavigation n = vm.navigation();
        return Ui.backForward(id, n::back, n::forward, n.canBackProperty(), n.canForwardProperty());
    }

    private Node connectingPane() {
        ProgressIndicator spin = new ProgressIndicator();
        spin.setMaxSize(36, 36);
        Label l = new Label();
        l.textProperty()
                .bind(Bindings.createStringBinding(
                        () -> vm.attachment().attachingLocationProperty().get() != null
                                ? "Opening "
                                        + vm.attachment()
                                                .attachingLocationProperty()
                                                .get() + "\u2026"
                                : vm.demoSession().startingProperty().get()
                                        ? "Starting the demo: a fresh database and five worker processes\u2026"
                                        : "",
                        vm.attachment().attachingLocationProperty(),
                        vm.demoSession().startingProperty()));
        VBox box = new VBox(12, spin, l);
        box.setAlignment(Pos.CENTER);
        box.setId("connecting");
        return box;
    }

    private void focusSearch() {
        if (content.getScene() != null && content.getScene().lookup("#search-field") instanceof TextField f) {
            f.requestFocus();
            f.selectAll();
        }
    }

    /** Shown while a demo runs: what it just did, and how to end it. */
    private Node demoStrip() {
        Label tag = new Label("DEMO");
        tag.getStyleClass().add("demo-tag");
        tag.setMinWidth(Region.USE_PREF_SIZE); // never "…": the narration gives way instead (issue 31)
        Label said = new Label();
        said.setId("demo-narration");
        said.textProperty().bind(vm.demoSession().narrationProperty());
        said.setMaxWidth(Double.MAX_VALUE);
        said.setMinWidth(0);
        HBox.setHgrow(said, Priority.ALWAYS);
        Button stop = new Button("Stop demo");
        stop.setId("demo-stop");
        stop.getStyleClass().addAll(Styles.SMALL, Styles.FLAT);
        stop.setOnAction(e -> vm.detach());
        stop.setMinWidth(Region.USE_PREF_SIZE);
        HBox strip = new HBox(10, tag, said, stop);
        strip.setId("demo-strip");
        strip.getStyleClass().add("demo-strip");
        strip.visibleProperty().bind(vm.demoSession().runningProperty());
        strip.managedProperty().bind(strip.visibleProperty());
        return strip;
    }

    /**
     * A fresh {@link Message} per banner: AtlantaFX 2.0.1's skin copies the description into the title
     * when one is reused (mkpaz/atlantafx#74), which showed the previous message as the headline.
     */
    private Node banner() {
        StackPane holder = new StackPane();
        holder.setId("banner-holder");
        holder.setPadding(new Insets(8, 12, 0, 12));
        Runnable show = () -> {
            Banner b = vm.bannerProperty().get();
            holder.setVisible(b != null);
            holder.setManaged(b != null);
            if (b == null) {
                holder.getChildren().clear();
                return;
            }
            // a sentence naming ids (an alert about a run) says them as links, like every other sentence
            boolean linked = LinkedSentence.IDS.matcher(b.text()).find();
            Message message = new Message(b.title(), linked ? null : b.text());
            message.setId("banner");
            // AtlantaFX's tile asks for its sentence's whole width as its least (a long warning made the window
            // wider than 1024): it may be as narrow as the window, its sentence wraps
            message.setMinWidth(0);
            message.setOnClose(e -> vm.banners().dismissBanner());
            message.getStyleClass()
                    .add(
                            switch (b.severity()) {
                                case INFO -> Styles.ACCENT;
                                case SUCCESS -> Styles.SUCCESS;
                                case WARNING -> Styles.WARNING;
                                case DANGER -> Styles.DANGER;
                            });
            if (linked) {
                // one line, its ids links, and a close button: a headline over it took two lines from a page that
                // must show the run it opened (issue 31), and the sentence says what it is about on its own
                LinkedSentence said = new LinkedSentence("banner-text").links(vm.navigation());
                said.setText(b.text());
                said.setMinWidth(0);
                said.setMaxWidth(Double.MAX_VALUE);
                HBox.setHgrow(said, Priority.ALWAYS);
                Button close = new Button("\u2715");
                close.setId("banner-close");
                close.getStyleClass().addAll(Styles.FLAT, Styles.SMALL);
                close.setMinWidth(Region.USE_PREF_SIZE);
                close.setTooltip(new Tooltip("Close"));
                close.setOnAction(e -> vm.banners().dismissBanner());
                HBox line = new HBox(8, said, close);
                line.setId("banner");
                line.setAlignment(Pos.CENTER_LEFT);
                line.getStyleClass().addAll("banner-line", b.severity().name().toLowerCase(java.util.Locale.ROOT));
                holder.getChildren().setAll(line);
            } else {
                holder.getChildren().setAll(message);
            }
        };
        vm.bannerProperty().addListener((obs, o, b) -> show.run());
        show.run();
        return holder;
    }

    private Window window() {
        return content.getScene() == null ? null : content.getScene().getWindow();
    }

    private void openWithDialog() {
        FileChooser chooser = new FileChooser();
        chooser.setTitle("Open a Sovereign database");
        chooser.getExtensionFilters()
                .addAll(
                        new FileChooser.ExtensionFilter("Sovereign databases (*.db)", "*.db"),
                        new FileChooser.ExtensionFilter("All files", "*"));
        Path dir = vm.attachment().lastDirectory();
        if (dir != null && dir.toFile().isDirectory()) {
            chooser.setInitialDirectory(dir.toFile());
        }
        File f = chooser.showOpenDialog(window());
        if (f != null) {
            vm.attach(f.toPath());
        }
    }

    /**
     * File → Open server: a PostgreSQL URL typed or pasted (decision 0423). The field is cleared once used; the URL
     * is shown and remembered only without its secrets.
     */
    private void openServerWithDialog() {
        ServerDialog.ask(window()).ifPresent(url -> {
            try {
                vm.attach(LedgerLocation.parse(url));
            } catch (IllegalArgumentException e) {
                vm.banners().showProblem("Not a server address", e.getMessage());
            }
        });
    }

    private void exportWithDialog() {
        LedgerLocation location = vm.attachedLocationProperty().get();
        if (location == null) {
            return;
        }
        // a server's journal is exported to the last folder used, named after the database
        Path db = location.file()
                .orElse(Path.of(
                        vm.attachment().lastDirectory() == null
                                ? System.getProperty("user.home")
                                : vm.attachment().lastDirectory().toString(),
                        location.withoutSecrets()
                                        .text()
                                        .replaceFirst("^.*/", "")
                                        .replaceFirst("[?].*$", "") + ".db"));
        FileChooser chooser = new FileChooser();
        chooser.setTitle("Export the fence journal as CSV");
        chooser.getExtensionFilters().add(new FileChooser.ExtensionFilter("CSV files (*.csv)", "*.csv"));
        String name = db.getFileName().toString().replaceFirst("\\.db$", "") + "-journal.csv";
        chooser.setInitialFileName(name);
        if (db.getParent() != null) {
            chooser.setInitialDirectory(db.getParent().toFile());
        }
        File f = chooser.showSaveDialog(window());
        if (f != null) {
            vm.journalExport().exportJournal(f.toPath());
        }
    }
}
