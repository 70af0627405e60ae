package dev.sovereign.console.feature.trends;

import dev.sovereign.console.fx.Ui;
import dev.sovereign.console.ledger.Formats;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToLongFunction;
import javafx.scene.Parent;
import javafx.scene.chart.CategoryAxis;
import javafx.scene.chart.LineChart;
import javafx.scene.chart.NumberAxis;
import javafx.scene.chart.XYChart;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;

/** Four small charts over the last hour, a point a minute (JavaFX charts, no animation). */
public final class TrendsView {
    private final TrendsViewModel vm;
    private final Formats formats;

    public TrendsView(TrendsViewModel vm, Formats formats) {
        this.vm = vm;
        this.formats = formats;
    }

    public Parent create() {
        LineChart<String, Number> grants = chart("trends-grants", "Grants and takeovers per minute");
        LineChart<String, Number> rejections = chart("trends-rejections", "Refused writes per minute, by category");
        LineChart<String, Number> lost = chart("trends-worker-lost", "Runs recovered as worker_lost per minute");
        LineChart<String, Number> journal = chart("trends-journal", "Journal size (events)");
        GridPane grid = new GridPane();
        grid.setHgap(12);
        grid.setVgap(12);
        grid.add(grants, 0, 0);
        grid.add(rejections, 1, 0);
        grid.add(lost, 0, 1);
        grid.add(journal, 1, 1);
        for (LineChart<?, ?> c : List.of(grants, rejections, lost, journal)) {
            GridPane.setHgrow(c, Priority.ALWAYS);
            GridPane.setVgrow(c, Priority.ALWAYS);
        }
        Label coverage = new Label();
        coverage.setId("trends-coverage");
        coverage.setWrapText(true);
        coverage.textProperty().bind(vm.coverageProperty());
        coverage.visibleProperty().bind(vm.coverageProperty().isNotEmpty());
        coverage.managedProperty().bind(coverage.visibleProperty());
        // the charts share the window's width; one shorter than their least height scrolls (issue 31)
        ScrollPane scroll = new ScrollPane(grid);
        scroll.setId("trends-scroll");
        scroll.setFitToWidth(true);
        scroll.setFitToHeight(true);
        scroll.getStyleClass().add("edge-to-edge");
        coverage.setMinHeight(Region.USE_PREF_SIZE);
        VBox body = new VBox(8, coverage, scroll);
        VBox.setVgrow(scroll, Priority.ALWAYS);
        Runnable fill = () -> {
            List<TrendsViewModel.Minute> m = vm.minutesProperty().get();
            grants.getData().setAll(series("grants", m, x -> x.grants()), series("takeovers", m, x -> x.takeovers()));
            Map<String, Boolean> categories = new TreeMap<>();
            m.forEach(x -> x.rejections().keySet().forEach(k -> categories.put(k, true)));
            List<XYChart.Series<String, Number>> byCategory = new ArrayList<>();
            for (String k : categories.keySet()) {
                byCategory.add(series(k, m, x -> x.rejections().getOrDefault(k, 0)));
            }
            if (byCategory.isEmpty()) {
                byCategory.add(series("refused writes", m, x -> 0));
            }
            rejections.getData().setAll(byCategory);
            lost.getData().setAll(List.of(series("worker_lost", m, x -> x.recovered())));
            journal.getData()
                    .setAll(List.of(series(
                            "events",
                            m.stream().filter(x -> x.journalSize() >= 0).toList(),
                            TrendsViewModel.Minute::journalSize)));
        };
        vm.minutesProperty().addListener((obs, o, n) -> fill.run());
        fill.run();
        return Ui.page(
                "trends",
                "Trends",
                "The last hour, a point a minute: when grants, takeovers, refusals or lost runs changed.",
                null,
                body);
    }

    private XYChart.Series<String, Number> series(
            String name, List<TrendsViewModel.Minute> minutes, ToLongFunction<TrendsViewModel.Minute> value) {
        XYChart.Series<String, Number> s = new XYChart.Series<>();
        s.setName(name);
        for (TrendsViewModel.Minute m : minutes) {
            s.getData().add(new XYChart.Data<>(formats.time(m.start()).substring(0, 5), value.applyAsLong(m)));
        }
        return s;
    }

    private static LineChart<String, Number> chart(String id, String title) {
        CategoryAxis x = new CategoryAxis();
        x.setAnimated(false);
        NumberAxis y = new NumberAxis();
        y.setAnimated(false);
        y.setForceZeroInRange(true);
        y.setMinorTickVisible(false);
        LineChart<String, Number> c = new LineChart<>(x, y);
        c.setId(id);
        c.setTitle(title);
        c.setAnimated(false);
        c.setCreateSymbols(false);
        c.setMinHeight(180);
        c.setMinWidth(220); // two side by side in a 1024-px window; the legend wraps
        c.setPrefHeight(240);
        return c;
    }
}
