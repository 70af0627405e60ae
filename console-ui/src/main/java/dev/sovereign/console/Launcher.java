package dev.sovereign.console;

import javafx.application.Application;

/**
 * The jar's entry point. A plain class, because a main class that extends {@code Application} does
 * not start from the class path ("JavaFX runtime components are missing").
 */
public final class Launcher {
    private Launcher() {
    }

    public static void main(String[] args) {
        Application.launch(ConsoleApp.class, args);
    }
}
