package dev.sovereign.console.fx;

import dev.sovereign.console.fx.Ui.Tone;
import javafx.geometry.VPos;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.text.TextAlignment;

/**
 * A bar draining from full to empty with a lease's TTL, and the time left in words below it,
 * painted (see {@link PaintedRegion}): ten updates a second cost no layout. The bar's colour follows
 * the tone through the style classes {@code good}, {@code warn}, {@code bad}, {@code quiet}
 * (console.css); style class {@code countdown-gauge}.
 */
public final class CountdownGauge extends PaintedRegion {
    private static final double BAR_HEIGHT = 6;
    private static final double GAP = 5;

    private double fraction;
    private String text = "";
    private Tone tone = Tone.QUIET;

    public CountdownGauge() {
        getStyleClass().addAll("countdown-gauge", tone.styleClass());
        setMinWidth(0);
    }

    /** Between 0 (expired) and 1 (just renewed); values outside are clamped. */
    public double getFraction() {
        return fraction;
    }

    public String getText() {
        return text;
    }

    public Tone getTone() {
        return tone;
    }

    /** Shows a new state; equal values change nothing, a new tone restyles (rare: a state change). */
    public void show(double newFraction, String newText, Tone newTone) {
        double f = Double.isNaN(newFraction) ? 0 : Math.max(0, Math.min(1, newFraction));
        String t = newText == null ? "" : newText;
        // a repaint only when a pixel would change: an hour-long lease moves its bar by 1/36,000 per tick
        boolean changed = barPixels(f) != barPixels(fraction) || !t.equals(text);
        fraction = f;
        text = t;
        if (newTone != tone) {
            getStyleClass().remove(tone.styleClass());
            tone = newTone;
            getStyleClass().add(tone.styleClass());
        }
        if (changed) {
            setAccessibleText(t);
            repaint();
        }
    }

    private long barPixels(double f) {
        double barWidth = Math.max(0, getWidth() - snappedLeftInset() - snappedRightInset());
        return f <= 0 ? -1 : Math.round(Math.max(BAR_HEIGHT, barWidth * f) * 2); // half pixels: smooth enough
    }

    @Override
    protected void paint(GraphicsContext g, double width, double height) {
        double left = snappedLeftInset();
        double barWidth = Math.max(0, width - left - snappedRightInset());
        double textHeight = getFont().getSize() * 1.2;
        double top = Math.round((height - BAR_HEIGHT - GAP - textHeight) / 2);
        g.setFill(trackFill());
        g.fillRoundRect(left, top, barWidth, BAR_HEIGHT, BAR_HEIGHT, BAR_HEIGHT);
        if (fraction > 0) {
            g.setFill(barFill());
            g.fillRoundRect(left, top, Math.max(BAR_HEIGHT, barWidth * fraction), BAR_HEIGHT, BAR_HEIGHT, BAR_HEIGHT);
        }
        g.setFill(textFill());
        g.setTextAlign(TextAlignment.LEFT);
        g.setTextBaseline(VPos.TOP);
        g.fillText(text, left, top + BAR_HEIGHT + GAP);
    }

    @Override
    protected double computePrefWidth(double height) {
        return 140;
    }

    @Override
    protected double computePrefHeight(double width) {
        return Math.ceil(BAR_HEIGHT + GAP + getFont().getSize() * 1.2);
    }
}
