package dev.sovereign.console.fx;

import javafx.geometry.VPos;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.text.TextAlignment;

/**
 * One line of text that changes with the clock ({@code 10:42:07  (3 s ago)}), painted, so a new
 * value never lays anything out (see {@link PaintedRegion}). Style class {@code ticking-text}.
 */
public final class TickingText extends PaintedRegion {
    private String text = "";

    public TickingText() {
        getStyleClass().add("ticking-text");
        setMinWidth(0);
    }

    public String getText() {
        return text;
    }

    /** Shows {@code value} (null shows nothing); an equal value changes nothing. */
    public void setText(String value) {
        String v = value == null ? "" : value;
        if (!v.equals(text)) {
            text = v;
            setAccessibleText(v);
            repaint();
        }
    }

    @Override
    protected void paint(GraphicsContext g, double width, double height) {
        g.setFill(textFill());
        g.setTextAlign(TextAlignment.LEFT);
        g.setTextBaseline(VPos.CENTER);
        g.fillText(text, snappedLeftInset(), Math.round(height / 2));
    }

    @Override
    protected double computePrefWidth(double height) {
        return 120;
    }

    @Override
    protected double computePrefHeight(double width) {
        return Math.ceil(getFont().getSize() * 1.4);
    }
}
