package dev.sovereign.console.fx;

import javafx.scene.Node;
import javafx.scene.layout.Region;

/**
 * Holds one node and keeps its layout requests inside: the child is unmanaged, which makes it a
 * layout root in JavaFX, so a change deep inside it (a table cell's text, a timeline lane) lays out
 * the child again but not the page header and the window around it (decision 0415). The boundary
 * itself is sized by its parent like any region and always gives the child all of its space.
 */
public final class LayoutBoundary extends Region {
    private final Node content;

    public LayoutBoundary(Node content) {
        this.content = content;
        content.setManaged(false);
        getChildren().add(content);
    }

    public Node content() {
        return content;
    }

    @Override
    protected void layoutChildren() {
        double left = snappedLeftInset();
        double top = snappedTopInset();
        content.resizeRelocate(
                left,
                top,
                Math.max(0, getWidth() - left - snappedRightInset()),
                Math.max(0, getHeight() - top - snappedBottomInset()));
    }

    @Override
    protected double computeMinWidth(double height) {
        return content.minWidth(height) + snappedLeftInset() + snappedRightInset();
    }

    @Override
    protected double computeMinHeight(double width) {
        return content.minHeight(width) + snappedTopInset() + snappedBottomInset();
    }

    @Override
    protected double computePrefWidth(double height) {
        return content.prefWidth(height) + snappedLeftInset() + snappedRightInset();
    }

    @Override
    protected double computePrefHeight(double width) {
        return content.prefHeight(width) + snappedTopInset() + snappedBottomInset();
    }
}
