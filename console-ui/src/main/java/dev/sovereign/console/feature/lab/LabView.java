package dev.sovereign.console.feature.lab;

import atlantafx.base.theme.Styles;
import dev.sovereign.console.fx.Ui;
import dev.sovereign.console.fx.Ui.Tone;
import dev.sovereign.engine.lab.Check;
import dev.sovereign.engine.lab.LabStep;
import dev.sovereign.engine.lab.LabVerdict;
import dev.sovereign.engine.lab.ScenarioInfo;
import java.time.Duration;
import java.util.Locale;
import javafx.beans.InvalidationListener;
import javafx.beans.binding.Bindings;
import javafx.beans.property.SimpleObjectProperty;
import javafx.collections.ListChangeListener;
import javafx.geometry.Insets;
import javafx.geometry.Orientation;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.Parent;
import javafx.scene.control.Button;
import javafx.scene.control.CheckBox;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Label;
import javafx.scene.control.ListCell;
import javafx.scene.control.ListView;
import javafx.scene.control.MenuButton;
import javafx.scene.control.MenuItem;
import javafx.scene.control.ProgressIndicator;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.control.TextField;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import javafx.util.StringConverter;

/**
 * The Lab page: the target database (and the lab sandbox), real worker processes with their
 * controls, and the teaching scenarios with a narrative that ticks as it runs and the verdict. Thin:
 * every decision is the {@link LabViewModel}'s.
 */
public final class LabView {
    private final LabViewModel vm;

    public LabView(LabViewModel vm) {
        this.vm = vm;
    }

    public Parent create() {
        SplitPane split = new SplitPane(workersSection(), scenarioSection());
        split.setOrientation(Orientation.VERTICAL);
        split.setDividerPositions(0.36);
        split.setId("lab-split");
        VBox.setVgrow(split, Priority.ALWAYS);
        VBox body = new VBox(10, targetBar(), notices(), messageBar(), split);
        VBox page = Ui.page("lab", "Lab",
                "Real contention on demand. Every worker here is a real OS process against the attached database:"
                        + " pause one past its TTL, kill one, skew its clock, and watch Leases (Ctrl+1), Timeline"
                        + " (Ctrl+2) and Rejections (Ctrl+3) show what the ledger allowed.", vm.summaryProperty(), body);
        page.getStylesheets().add(LabView.class.getResource("lab.css").toExternalForm());
        return page;
    }

    // ---- target and sandbox ----

    private Node targetBar() {
        Label caption = new Label("Database");
        caption.getStyleClass().add(Styles.TEXT_MUTED);
        Label path = new Label();
        path.setId("lab-target");
        path.getStyleClass().add("mono");
        path.textProperty().bind(Bindings.createStringBinding(() -> vm.targetProperty().get() == null ? "none attached"
                : String.valueOf(vm.targetProperty().get().getFileName()), vm.targetProperty()));
        Tooltip full = new Tooltip();
        full.textProperty().bind(Bindings.createStringBinding(() -> vm.targetProperty().get() == null ? ""
                : vm.targetProperty().get().toString(), vm.targetProperty()));
        path.setTooltip(full);
        path.setMinWidth(Region.USE_PREF_SIZE);
        caption.setMinWidth(Region.USE_PREF_SIZE);
        Label kind = Ui.badge("", Tone.QUIET);
        kind.setId("lab-target-kind");
        Runnable rekind = () -> {
            if (vm.targetProperty().get() == null) {
                Ui.retone(kind, "nothing attached", Tone.QUIET);
            } else if (vm.targetIsSandboxProperty().get()) {
                Ui.retone(kind, "lab sandbox", Tone.GOOD);
            } else {
                Ui.retone(kind, "not a sandbox", Tone.WARN);
            }
        };
        vm.targetProperty().addListener((obs, o, n) -> rekind.run());
        vm.targetIsSandboxProperty().addListener((obs, o, n) -> rekind.run());
        rekind.run();
        CheckBox breakFence = new CheckBox("Break the fence");
        breakFence.setId("lab-break-fence");
        breakFence.selectedProperty().bindBidirectional(vm.breakFenceProperty());
        breakFence.setTooltip(new Tooltip("Starts new workers and scenarios with"
                + " -Dsovereign.fault.ignoreTerminalFence=true: their terminal writes skip the fence, so a stale"
                + " holder's result can land. For teaching only."));
        breakFence.setMinWidth(Region.USE_PREF_SIZE);
        Button open = new Button("Open lab sandbox");
        open.setId("lab-open-sandbox");
        open.setOnAction(e -> vm.openSandbox());
        open.disableProperty().bind(vm.targetIsSandboxProperty());
        Button reset = new Button("Reset sandbox");
        reset.setId("lab-reset-sandbox");
        reset.getStyleClass().add(Styles.DANGER);
        reset.setTooltip(new Tooltip("Stops every worker started here and attaches a brand-new, empty sandbox"));
        reset.setOnAction(e -> vm.resetSandbox());
        reset.disableProperty().bind(vm.targetIsSandboxProperty().not().or(vm.busyProperty()));
        Region grow = new Region();
        HBox.setHgrow(grow, Priority.ALWAYS);
        open.setMinWidth(Region.USE_PREF_SIZE);
        reset.setMinWidth(Region.USE_PREF_SIZE);
        kind.setMinWidth(Region.USE_PREF_SIZE);
        HBox bar = new HBox(10, caption, path, kind, grow, breakFence, open, reset);
        bar.setAlignment(Pos.CENTER_LEFT);
        bar.setId("lab-target-bar");
        return bar;
    }

    private Node notices() {
        VBox box = new VBox(6);
        Label notSandbox = new Label("These controls start real processes against this database and add actors and"
                + " jobs to it. Open the lab sandbox unless you mean to.");
        notSandbox.setId("lab-not-sandbox");
        notSandbox.setWrapText(true);
        HBox warn = new HBox(notSandbox);
        warn.getStyleClass().add("attention");
        warn.visibleProperty().bind(vm.targetProperty().isNotNull().and(vm.targetIsSandboxProperty().not()));
        warn.managedProperty().bind(warn.visibleProperty());
        box.getChildren().add(warn);
        if (!vm.hasStopSignals()) {
            Label platform = new Label(vm.platformNote());
            platform.setId("lab-platform-note");
            platform.setWrapText(true);
            HBox note = new HBox(platform);
            note.getStyleClass().add("lab-note");
            box.getChildren().add(note);
        }
        box.visibleProperty().bind(warn.visibleProperty().or(Bindings.size(box.getChildren()).greaterThan(1)));
        box.managedProperty().bind(box.visibleProperty());
        return box;
    }

    private Node messageBar() {
        ProgressIndicator spin = new ProgressIndicator();
        spin.setId("lab-busy");
        spin.setMaxSize(16, 16);
        spin.visibleProperty().bind(vm.busyProperty().or(vm.runningProperty()));
        Label message = new Label();
        message.setId("lab-message");
        message.setWrapText(true);
        message.textProperty().bind(vm.messageProperty());
        vm.messageIsProblemProperty().addListener((obs, o, p) -> restyle(message, p));
        restyle(message, vm.messageIsProblemProperty().get());
        HBox bar = new HBox(8, spin, message);
        bar.setAlignment(Pos.CENTER_LEFT);
        bar.setMinHeight(24);
        return bar;
    }

    private static void restyle(Label message, boolean problem) {
        message.getStyleClass().removeAll(Styles.DANGER, Styles.TEXT_MUTED);
        message.getStyleClass().add(problem ? Styles.DANGER : Styles.TEXT_MUTED);
    }

    // ---- workers ----

    private Node workersSection() {
        TextField actor = new TextField();
        actor.setId("lab-actor");
        actor.setPrefColumnCount(10);
        actor.textProperty().bindBidirectional(vm.actorProperty());
        ChoiceBox<Duration> ttl = new ChoiceBox<>();
        ttl.setId("lab-ttl");
        ttl.getItems().setAll(LabViewModel.TTL_CHOICES);
        ttl.setConverter(seconds("TTL "));
        ttl.valueProperty().bindBidirectional(vm.ttlProperty());
        ChoiceBox<Duration> clock = new ChoiceBox<>();
        clock.setId("lab-clock");
        clock.getItems().setAll(Duration.ZERO, Duration.ofSeconds(5), Duration.ofSeconds(30), Duration.ofSeconds(-5));
        clock.setConverter(offsets());
        clock.valueProperty().bindBidirectional(vm.clockOffsetProperty());
        Button start = new Button("Start worker");
        start.setId("lab-start-worker");
        start.getStyleClass().add(Styles.ACCENT);
        start.setOnAction(e -> vm.startWorker());
        start.disableProperty().bind(vm.targetProperty().isNull());
        Button job = new Button("Give it a " + LabViewModel.JOB_LENGTH.toSeconds() + " s job");
        job.setId("lab-give-job");
        job.setTooltip(new Tooltip("Assigns a scripted job to the actor: the worker hosting it runs it. Pause that"
                + " worker mid-job to see its late write refused."));
        job.setOnAction(e -> vm.giveJob());
        job.disableProperty().bind(vm.targetProperty().isNull());
        Button clear = new Button("Clear ended");
        clear.setId("lab-clear-ended");
        clear.getStyleClass().add(Styles.FLAT);
        clear.setOnAction(e -> vm.clearEnded());
        HBox form = new HBox(8, new Label("Actor"), actor, ttl, clock, start, job, clear);
        form.setAlignment(Pos.CENTER_LEFT);

        TableView<LabWorkerItem> table = Ui.table("lab-workers", "No worker processes yet. Start one (or two, for the"
                + " same actor) and watch them contend for its lease.");
        table.setItems(vm.workers());
        TableColumn<LabWorkerItem, String> name = Ui.column("Worker", 170, w -> w.label()
                + (w.isFaultInjected() ? "  (fence off)" : ""));
        name.setMinWidth(170);
        name.getStyleClass().add("text-bold");
        table.getColumns().add(name);
        table.getColumns().add(Ui.column("PID", 64, w -> Long.toString(w.pid())));
        table.getColumns().add(stateColumn());
        TableColumn<LabWorkerItem, String> says = Ui.liveColumn("Ledger says", 250, LabWorkerItem::ledgerProperty);
        says.setMinWidth(200);
        table.getColumns().add(says);
        TableColumn<LabWorkerItem, String> clockColumn = Ui.liveColumn("Clock", 92, w -> Bindings.createStringBinding(
                () -> LabWorkerItem.offsetText(w.clockOffsetProperty().get()), w.clockOffsetProperty()));
        clockColumn.setMinWidth(92);
        table.getColumns().add(clockColumn);
        table.getColumns().add(actionsColumn());
        TableColumn<LabWorkerItem, String> line = Ui.liveColumn("Last line it printed", 360,
                LabWorkerItem::lastLineProperty);
        line.getStyleClass().add("mono");
        table.getColumns().add(line);
        VBox.setVgrow(table, Priority.ALWAYS);
        VBox section = new VBox(8, sectionTitle("Worker processes"), form, table);
        section.setPadding(new Insets(0, 0, 8, 0));
        section.setId("lab-workers-section");
        return section;
    }

    private static TableColumn<LabWorkerItem, LabWorkerItem.State> stateColumn() {
        TableColumn<LabWorkerItem, LabWorkerItem.State> c = new TableColumn<>("Process");
        c.setPrefWidth(96);
        c.setMinWidth(96);
        c.setCellValueFactory(f -> f.getValue().stateProperty());
        c.setCellFactory(col -> new TableCell<>() {
            private final Label badge = Ui.badge("", Tone.QUIET);

            @Override
            protected void updateItem(LabWorkerItem.State s, boolean empty) {
                super.updateItem(s, empty);
                if (empty || s == null) {
                    setGraphic(null);
                    return;
                }
                Ui.retone(badge, s.text(), switch (s) {
                    case STARTING -> Tone.INFO;
                    case RUNNING -> Tone.GOOD;
                    case PAUSED -> Tone.WARN;
                    case ENDED -> Tone.QUIET;
                });
                LabWorkerItem item = getTableRow() == null ? null : getTableRow().getItem();
                badge.setId(item == null ? null : "lab-state-" + idOf(item));
                setGraphic(badge);
            }
        });
        return c;
    }

    private TableColumn<LabWorkerItem, LabWorkerItem> actionsColumn() {
        TableColumn<LabWorkerItem, LabWorkerItem> c = new TableColumn<>("Controls");
        c.setPrefWidth(262);
        c.setMinWidth(262);
        c.setCellValueFactory(f -> new SimpleObjectProperty<>(f.getValue()));
        c.setCellFactory(col -> new ControlsCell());
        return c;
    }

    /** "worker-A": how ids name a worker's row. */
    static String idOf(LabWorkerItem item) {
        return item.label().replaceAll("[^A-Za-z0-9]+", "-").replaceAll("-+$", "");
    }

    /** Pause/resume, kill, skew, stop for one worker; disabled for scenario workers and ended ones. */
    private final class ControlsCell extends TableCell<LabWorkerItem, LabWorkerItem> {
        private final Button pause = new Button();
        private final Button kill = new Button("Kill");
        private final MenuButton skew = new MenuButton("Skew");
        private final Button stop = new Button("Stop");
        private final HBox box = new HBox(6, pause, kill, skew, stop);
        private LabWorkerItem bound;
        private final InvalidationListener onChange = o -> refresh();

        ControlsCell() {
            box.setAlignment(Pos.CENTER_LEFT);
            for (Node n : box.getChildren()) {
                n.getStyleClass().add(Styles.SMALL);
            }
            kill.getStyleClass().add(Styles.DANGER);
            pause.setOnAction(e -> {
                if (bound != null) {
                    if (bound.state() == LabWorkerItem.State.PAUSED) {
                        vm.resume(bound);
                    } else {
                        vm.pause(bound);
                    }
                }
            });
            kill.setOnAction(e -> {
                if (bound != null) {
                    vm.kill(bound);
                }
            });
            stop.setOnAction(e -> {
                if (bound != null) {
                    vm.stop(bound);
                }
            });
            for (Duration d : LabViewModel.SKEW_CHOICES) {
                MenuItem i = new MenuItem(d.isZero() ? "true clock" : LabWorkerItem.offsetText(d)
                        + (d.isNegative() ? " (behind)" : " (ahead)"));
                i.setOnAction(e -> {
                    if (bound != null) {
                        vm.skew(bound, d);
                    }
                });
                skew.getItems().add(i);
            }
        }

        @Override
        protected void updateItem(LabWorkerItem item, boolean empty) {
            super.updateItem(item, empty);
            if (bound != null) {
                bound.stateProperty().removeListener(onChange);
                bound.busyProperty().removeListener(onChange);
                bound = null;
            }
            if (empty || item == null) {
                setGraphic(null);
                return;
            }
            bound = item;
            String id = idOf(item);
            pause.setId("lab-pause-" + id);
            kill.setId("lab-kill-" + id);
            skew.setId("lab-skew-" + id);
            stop.setId("lab-stop-" + id);
            item.stateProperty().addListener(onChange);
            item.busyProperty().addListener(onChange);
            refresh();
            setGraphic(item.isFromScenario() ? scenarioNote() : box);
        }

        private Label scenarioNote() {
            Label l = new Label("driven by the scenario");
            l.getStyleClass().add(Styles.TEXT_MUTED);
            return l;
        }

        private void refresh() {
            if (bound == null) {
                return;
            }
            LabWorkerItem.State s = bound.state();
            boolean off = bound.busyProperty().get() || s == LabWorkerItem.State.ENDED || s == LabWorkerItem.State.STARTING;
            pause.setText(s == LabWorkerItem.State.PAUSED ? "Resume" : "Pause");
            pause.setDisable(off);
            kill.setDisable(off);
            skew.setDisable(off);
            stop.setDisable(off);
        }
    }

    // ---- scenarios ----

    private Node scenarioSection() {
        ListView<ScenarioInfo> list = new ListView<>();
        list.setId("lab-scenarios");
        list.getItems().setAll(vm.scenarios());
        list.setPrefWidth(300);
        list.setMinWidth(260);
        list.setCellFactory(l -> new ListCell<>() {
            @Override
            protected void updateItem(ScenarioInfo s, boolean empty) {
                super.updateItem(s, empty);
                if (empty || s == null) {
                    setGraphic(null);
                    setText(null);
                    return;
                }
                Label name = new Label(s.name());
                name.getStyleClass().add("text-bold");
                Label title = new Label(s.title());
                title.getStyleClass().add(Styles.TEXT_MUTED);
                title.setWrapText(true);
                title.setMaxWidth(240);
                title.setMinHeight(Region.USE_PREF_SIZE);
                setGraphic(new VBox(1, name, title));
                setText(null);
            }
        });
        list.getSelectionModel().select(vm.selectedScenarioProperty().get());
        list.getSelectionModel().selectedItemProperty().addListener((obs, o, s) -> {
            if (s != null) {
                vm.selectedScenarioProperty().set(s);
            }
        });
        vm.selectedScenarioProperty().addListener((obs, o, s) -> list.getSelectionModel().select(s));
        list.disableProperty().bind(vm.runningProperty());
        Button run = new Button("Run scenario");
        run.setId("lab-run");
        run.getStyleClass().add(Styles.ACCENT);
        run.setOnAction(e -> vm.runScenario());
        run.disableProperty().bind(vm.runningProperty().or(vm.targetProperty().isNull()));
        Button cancel = new Button("Stop");
        cancel.setId("lab-cancel");
        cancel.setOnAction(e -> vm.cancelScenario());
        cancel.disableProperty().bind(vm.runningProperty().not());
        HBox buttons = new HBox(8, run, cancel);
        VBox.setVgrow(list, Priority.ALWAYS);
        VBox left = new VBox(8, sectionTitle("Scenarios"), list, buttons);

        Label summary = new Label();
        summary.setId("lab-scenario-summary");
        summary.setWrapText(true);
        summary.textProperty().bind(Bindings.createStringBinding(() -> vm.selectedScenarioProperty().get() == null ? ""
                : vm.selectedScenarioProperty().get().summary(), vm.selectedScenarioProperty()));
        summary.getStyleClass().add("step-detail");
        VBox narrative = new VBox(4);
        narrative.setId("lab-narrative");
        VBox verdict = new VBox(6);
        verdict.setId("lab-verdict");
        verdict.getStyleClass().add("detail-pane");
        VBox checks = new VBox(6);
        checks.setId("lab-checks");
        checks.getStyleClass().add("detail-pane");
        vm.verdictProperty().addListener((obs, o, v) -> fillVerdict(verdict, checks, v));
        fillVerdict(verdict, checks, null);
        VBox right = new VBox(10, verdict, summary, narrative, checks);
        right.setPadding(new Insets(0, 8, 8, 4));
        ScrollPane scroll = new ScrollPane(right);
        scroll.setFitToWidth(true);
        scroll.setId("lab-narrative-scroll");
        vm.steps().addListener((ListChangeListener<LabStep>) c -> {
            fillNarrative(narrative);
            keepInView(scroll, right, narrative);
        });
        fillNarrative(narrative);
        HBox.setHgrow(scroll, Priority.ALWAYS);
        VBox.setVgrow(scroll, Priority.ALWAYS);
        VBox middle = new VBox(8, sectionTitle("Narrative"), scroll);
        HBox.setHgrow(middle, Priority.ALWAYS);
        HBox row = new HBox(16, left, middle, livePanel());
        row.setPadding(new Insets(8, 0, 0, 0));
        row.setId("lab-scenario-section");
        return row;
    }

    private void fillNarrative(VBox narrative) {
        narrative.getChildren().clear();
        for (LabStep s : vm.steps()) {
            Label number = Ui.badge(Integer.toString(s.index() + 1), switch (s.status()) {
                case PENDING, SKIPPED -> Tone.QUIET;
                case RUNNING -> Tone.INFO;
                case DONE -> Tone.GOOD;
                case FAILED -> Tone.BAD;
            });
            number.setMinWidth(28);
            number.setAlignment(Pos.CENTER);
            Label title = new Label(s.title() + (s.status() == LabStep.Status.SKIPPED ? "  (not reached)" : ""));
            title.setWrapText(true);
            if (s.status() == LabStep.Status.RUNNING) {
                title.getStyleClass().add("text-bold");
            } else if (s.status() == LabStep.Status.PENDING || s.status() == LabStep.Status.SKIPPED) {
                title.getStyleClass().add(Styles.TEXT_MUTED);
            }
            VBox text = new VBox(1, title);
            if (!s.detail().isEmpty()) {
                Label detail = new Label(s.detail());
                detail.setWrapText(true);
                detail.getStyleClass().add(s.status() == LabStep.Status.FAILED ? Styles.DANGER : "step-detail");
                text.getChildren().add(detail);
            }
            HBox.setHgrow(text, Priority.ALWAYS);
            HBox line = new HBox(8, number, text);
            if (s.status() == LabStep.Status.RUNNING) {
                ProgressIndicator spin = new ProgressIndicator();
                spin.setMaxSize(14, 14);
                line.getChildren().add(spin);
            }
            line.setId("lab-step-" + (s.index() + 1));
            line.getStyleClass().addAll("lab-step", s.status().code());
            narrative.getChildren().add(line);
        }
    }

    /** The verdict on top (badge and headline); the checks with their evidence below the narrative. */
    private static void fillVerdict(VBox box, VBox checks, LabVerdict v) {
        box.getChildren().clear();
        checks.getChildren().clear();
        box.setVisible(v != null);
        box.setManaged(v != null);
        checks.setVisible(v != null);
        checks.setManaged(v != null);
        if (v == null) {
            return;
        }
        Label badge = Ui.badge(v.verdict().name(), switch (v.verdict()) {
            case HELD -> Tone.GOOD;
            case VIOLATED -> Tone.BAD;
            case INCONCLUSIVE -> Tone.WARN;
        });
        badge.setId("lab-verdict-badge");
        badge.setMinWidth(Region.USE_PREF_SIZE);
        Label headline = new Label(Character.toUpperCase(v.headline().charAt(0)) + v.headline().substring(1) + ".");
        headline.setId("lab-verdict-headline");
        headline.setWrapText(true);
        headline.getStyleClass().add("text-bold");
        HBox top = new HBox(10, badge, headline);
        top.setAlignment(Pos.CENTER_LEFT);
        box.getChildren().add(top);
        Label checksTitle = new Label("What the checker read from the journal and the ledger of "
                + v.database().getFileName() + " (actor " + v.actor() + ")"
                + (v.faultInjected() ? ", with the terminal fence switched OFF in its workers" : ""));
        checksTitle.setWrapText(true);
        checksTitle.getStyleClass().add(Styles.TEXT_MUTED);
        checks.getChildren().add(checksTitle);
        for (Check c : v.checks()) {
            Label mark = Ui.badge(c.passed() ? "ok" : "failed", c.passed() ? Tone.GOOD
                    : c.kind() == Check.Kind.SAFETY ? Tone.BAD : Tone.WARN);
            mark.setMinWidth(52);
            mark.setAlignment(Pos.CENTER);
            Label kind = new Label(c.kind().name().toLowerCase(Locale.ROOT));
            kind.getStyleClass().add(Styles.TEXT_MUTED);
            kind.setMinWidth(46);
            Label statement = new Label(c.statement());
            statement.setWrapText(true);
            Label evidence = new Label(c.evidence());
            evidence.setWrapText(true);
            evidence.getStyleClass().addAll("step-detail", "mono");
            VBox text = new VBox(1, statement, evidence);
            HBox.setHgrow(text, Priority.ALWAYS);
            checks.getChildren().add(new HBox(8, mark, kind, text));
        }
    }

    /** Scrolls the narrative so the running step (or the verdict, once there is one) is in view. */
    private void keepInView(ScrollPane scroll, VBox content, VBox narrative) {
        Node running = narrative.getChildren().stream().filter(n -> n.getStyleClass().contains("running"))
                .findFirst().orElse(null);
        content.applyCss();
        content.layout();
        double contentHeight = content.getHeight();
        double viewport = scroll.getViewportBounds().getHeight();
        if (contentHeight <= viewport || viewport <= 0) {
            return;
        }
        double y = running == null ? 0 : narrative.getBoundsInParent().getMinY() + running.getBoundsInParent().getMinY()
                - viewport / 3;
        scroll.setVvalue(Math.max(0, Math.min(1, y / (contentHeight - viewport))));
    }

    /** What the ledger says right now about the watched actor, and the newest rejection. */
    private Node livePanel() {
        Label lease = new Label();
        lease.setId("lab-live-lease");
        lease.setWrapText(true);
        lease.textProperty().bind(vm.liveLeaseProperty());
        Label rejection = new Label();
        rejection.setId("lab-live-rejection");
        rejection.setWrapText(true);
        rejection.textProperty().bind(vm.liveRejectionProperty());
        Label leaseCaption = new Label("Lease now");
        leaseCaption.getStyleClass().add(Styles.TEXT_MUTED);
        Label rejectionCaption = new Label("Newest rejection");
        rejectionCaption.getStyleClass().add(Styles.TEXT_MUTED);
        VBox pane = new VBox(6, leaseCaption, lease, rejectionCaption, rejection);
        pane.getStyleClass().add("detail-pane");
        VBox live = new VBox(8, sectionTitle("Ledger, live"), pane);
        live.setPrefWidth(280);
        live.setMinWidth(240);
        live.setMaxWidth(320);
        return live;
    }

    private static Label sectionTitle(String text) {
        Label l = new Label(text);
        l.getStyleClass().add(Styles.TITLE_4);
        return l;
    }

    private static StringConverter<Duration> seconds(String prefix) {
        return new StringConverter<>() {
            @Override
            public String toString(Duration d) {
                return d == null ? "" : prefix + d.toSeconds() + " s";
            }

            @Override
            public Duration fromString(String s) {
                throw new UnsupportedOperationException("choices only");
            }
        };
    }

    private static StringConverter<Duration> offsets() {
        return new StringConverter<>() {
            @Override
            public String toString(Duration d) {
                return d == null ? "" : d.isZero() ? "true clock" : "clock " + LabWorkerItem.offsetText(d);
            }

            @Override
            public Duration fromString(String s) {
                throw new UnsupportedOperationException("choices only");
            }
        };
    }
}
