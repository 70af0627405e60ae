package dev.sovereign.console.fx;

import java.util.List;
import javafx.beans.value.ObservableValue;
import javafx.css.CssMetaData;
import javafx.css.Styleable;
import javafx.css.StyleableProperty;
import javafx.css.StyleablePropertyFactory;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.layout.Region;
import javafx.scene.paint.Color;
import javafx.scene.paint.Paint;
import javafx.scene.text.Font;

/**
 * A region that paints its content on a canvas. Changing what it shows repaints it and nothing
 * else: unlike a {@code Label} or a {@code ProgressBar}, it never asks for a layout pass.
 *
 * <p>Why this matters: inside a {@code TableView}, one cell asking for layout makes the table's
 * {@code VirtualFlow} lay out and re-bind every visible cell. Countdowns that change ten times a
 * second were doing exactly that on every tick (decision 0415). Painted content is redrawn on the
 * render thread from a few recorded canvas commands instead.
 *
 * <p>Colours come from CSS ({@code -sov-text-fill}, {@code -sov-bar-fill}, {@code -sov-track-fill}),
 * so the light and dark themes apply; the font is set by the owner (a table cell passes its own).
 * FX-thread confined.
 */
public abstract class PaintedRegion extends Region {
    private static final StyleablePropertyFactory<PaintedRegion> STYLE =
            new StyleablePropertyFactory<>(Region.getClassCssMetaData());

    private final StyleableProperty<Paint> textFill =
            STYLE.createStyleablePaintProperty(this, "textFill", "-sov-text-fill", r -> r.textFill, Color.GRAY);
    private final StyleableProperty<Paint> barFill =
            STYLE.createStyleablePaintProperty(this, "barFill", "-sov-bar-fill", r -> r.barFill, Color.SEAGREEN);
    private final StyleableProperty<Paint> trackFill =
            STYLE.createStyleablePaintProperty(this, "trackFill", "-sov-track-fill", r -> r.trackFill, Color.LIGHTGRAY);
    private final Canvas canvas = new Canvas();
    private Font font = Font.getDefault();

    protected PaintedRegion() {
        getChildren().add(canvas);
        canvas.setManaged(false);
        for (StyleableProperty<Paint> p : List.of(textFill, barFill, trackFill)) {
            ((ObservableValue<?>) p).addListener(o -> repaint());
        }
    }

    /** The font text is drawn in; a change repaints. */
    public void setFont(Font f) {
        if (f != null && !f.equals(font)) {
            font = f;
            repaint();
        }
    }

    public Font getFont() {
        return font;
    }

    protected Paint textFill() {
        return textFill.getValue();
    }

    protected Paint barFill() {
        return barFill.getValue();
    }

    protected Paint trackFill() {
        return trackFill.getValue();
    }

    /** Draws the content again at the current size. Cheap: a handful of canvas commands. */
    protected final void repaint() {
        double w = canvas.getWidth();
        double h = canvas.getHeight();
        GraphicsContext g = canvas.getGraphicsContext2D();
        g.clearRect(0, 0, w, h);
        if (w > 0 && h > 0) {
            g.setFont(font);
            paint(g, w, h);
        }
    }

    /** Paints the content on a cleared canvas of {@code width} x {@code height}. */
    protected abstract void paint(GraphicsContext g, double width, double height);

    @Override
    protected void layoutChildren() {
        double w = snapSizeX(getWidth());
        double h = snapSizeY(getHeight());
        if (w != canvas.getWidth() || h != canvas.getHeight()) {
            canvas.setWidth(w);
            canvas.setHeight(h);
            repaint();
        }
    }

    public static List<CssMetaData<? extends Styleable, ?>> getClassCssMetaData() {
        return STYLE.getCssMetaData();
    }

    @Override
    public List<CssMetaData<? extends Styleable, ?>> getCssMetaData() {
        return getClassCssMetaData();
    }
}
