package dev.sovereign.console.shell;

/** The two looks; the view applies them with AtlantaFX's Primer themes. */
public enum ConsoleTheme {
    LIGHT,
    DARK;

    public ConsoleTheme other() {
        return this == LIGHT ? DARK : LIGHT;
    }
}
