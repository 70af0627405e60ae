package dev.sovereign.console.shell;

import atlantafx.base.theme.PrimerDark;
import atlantafx.base.theme.PrimerLight;
import atlantafx.base.theme.Theme;
import javafx.application.Application;

/** Applies a {@link ConsoleTheme} as the application's user-agent stylesheet (AtlantaFX Primer). */
public final class ThemeManager {
    private ThemeManager() {}

    public static Theme themeFor(ConsoleTheme t) {
        return t == ConsoleTheme.DARK ? new PrimerDark() : new PrimerLight();
    }

    /** Must run on the FX thread. Every looked-up colour in console.css follows at once. */
    public static void apply(ConsoleTheme t) {
        Application.setUserAgentStylesheet(themeFor(t).getUserAgentStylesheet());
    }

    /** The stylesheet URL of the console's own styles, to add to a scene. */
    public static String consoleStylesheet() {
        return ThemeManager.class
                .getResource("/dev/sovereign/console/console.css")
                .toExternalForm();
    }
}
