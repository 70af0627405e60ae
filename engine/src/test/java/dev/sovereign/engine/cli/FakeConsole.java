package dev.sovereign.engine.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Stands in for the desktop console jar: records its arguments in its working directory, exits 7. */
public final class FakeConsole {
    static final String RECORD = "console-args.txt";
    static final int EXIT = 7;

    private FakeConsole() {
    }

    public static void main(String[] args) throws IOException {
        Files.writeString(Path.of(RECORD), String.join("\n", args));
        System.exit(EXIT);
    }
}
