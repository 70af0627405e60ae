package dev.sovereign.console.actions;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Opens a file or a folder with the desktop's own opener — {@code xdg-open} on Linux, {@code open} on macOS,
 * {@code explorer} on Windows — as a process of its own that the console never waits for, so a missing file
 * manager or a slow one cannot freeze the window; or says in one sentence why it cannot (no display, no opener):
 * decision 0918. Not {@code java.awt.Desktop}: it would load AWT beside JavaFX's toolkit for one call.
 */
public interface DesktopOpener {
    /** Why nothing can be opened on this machine, in one sentence; null when it can. */
    String whyNot();

    /** Starts the opener on {@code target} and returns (call off the UI thread: starting a process takes a moment). */
    void open(Path target) throws IOException;

    /** The opener of the desktop this console runs on, read from the operating system and the environment. */
    static DesktopOpener system() {
        return of(System.getProperty("os.name", ""), System.getenv(), System.getProperty("glass.platform"));
    }

    /**
     * The opener for an operating system named {@code os}, an environment {@code env} ({@code PATH}, {@code
     * DISPLAY}, {@code WAYLAND_DISPLAY}) and JavaFX's glass platform ({@code Monocle}: no desktop at all).
     */
    static DesktopOpener of(String os, Map<String, String> env, String glass) {
        String name = os.toLowerCase(Locale.ROOT);
        if ("monocle".equalsIgnoreCase(glass) || "headless".equalsIgnoreCase(glass)) {
            return none("This console runs without a desktop (headless): open the path from a terminal.");
        }
        List<String> command;
        if (name.startsWith("windows")) {
            command = List.of("explorer");
        } else if (name.startsWith("mac")) {
            command = List.of("/usr/bin/open");
        } else {
            boolean display = !env.getOrDefault("DISPLAY", "").isBlank()
                    || !env.getOrDefault("WAYLAND_DISPLAY", "").isBlank();
            if (!display) {
                return none("This console has no display to open a file manager on: open the path from a terminal.");
            }
            Path found = null;
            for (String dir : env.getOrDefault("PATH", "").split(File.pathSeparator)) {
                Path p = dir.isBlank() ? null : Path.of(dir, "xdg-open");
                if (p != null && Files.isExecutable(p)) {
                    found = p;
                    break;
                }
            }
            if (found == null) {
                return none("Opening needs xdg-open, which this machine does not have (Debian/Ubuntu: sudo apt-get"
                        + " install xdg-utils).");
            }
            command = List.of(found.toString());
        }
        List<String> run = command;
        return new DesktopOpener() {
            @Override
            public String whyNot() {
                return null;
            }

            @Override
            public void open(Path target) throws IOException {
                List<String> line = new java.util.ArrayList<>(run);
                line.add(target.toString());
                new ProcessBuilder(line)
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .start();
            }
        };
    }

    /** An opener that opens nothing, for {@code reason}. */
    static DesktopOpener none(String reason) {
        return new DesktopOpener() {
            @Override
            public String whyNot() {
                return reason;
            }

            @Override
            public void open(Path target) throws IOException {
                throw new IOException(reason);
            }
        };
    }
}
