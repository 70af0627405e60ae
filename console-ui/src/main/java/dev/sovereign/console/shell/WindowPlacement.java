package dev.sovereign.console.shell;

import java.util.Optional;
import javafx.geometry.Rectangle2D;

/**
 * Where the console's window opens: the last place it had if that still lies wholly inside the screen's visual
 * bounds (the screen less its task bars), else the preferred 1320×820, made smaller to fit the screen, centred in
 * it (issue 31: a fixed 1320×820 on a 1024×700 screen opened at −148,−40 with its menu and status bar off the
 * screen). A window remembered on a larger or another screen is never put back off this one. Pure arithmetic; the
 * app reads the screen and the settings and applies the result to its stage.
 *
 * @param maximized whether the window was maximised; the bounds are then the ones it returns to
 */
public record WindowPlacement(double x, double y, double width, double height, boolean maximized) {
    public static final double PREFERRED_WIDTH = 1320;
    public static final double PREFERRED_HEIGHT = 820;

    /** The placement for a window on a screen with {@code visual} bounds, given the one remembered (if any). */
    public static WindowPlacement choose(Rectangle2D visual, Optional<WindowPlacement> remembered) {
        WindowPlacement fresh =
                centred(visual, remembered.map(WindowPlacement::maximized).orElse(false));
        return remembered.filter(r -> r.fitsIn(visual)).orElse(fresh);
    }

    /** The preferred size, no larger than {@code visual}, centred in it. */
    static WindowPlacement centred(Rectangle2D visual, boolean maximized) {
        double w = Math.min(PREFERRED_WIDTH, visual.getWidth());
        double h = Math.min(PREFERRED_HEIGHT, visual.getHeight());
        double x = visual.getMinX() + Math.max(0, Math.floor((visual.getWidth() - w) / 2));
        double y = visual.getMinY() + Math.max(0, Math.floor((visual.getHeight() - h) / 2));
        return new WindowPlacement(x, y, w, h, maximized);
    }

    /** Whether these bounds lie wholly inside {@code visual}, with a real size. */
    public boolean fitsIn(Rectangle2D visual) {
        return width >= 1
                && height >= 1
                && x >= visual.getMinX()
                && y >= visual.getMinY()
                && x + width <= visual.getMaxX()
                && y + height <= visual.getMaxY();
    }
}
