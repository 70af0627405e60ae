package dev.sovereign.console;

import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;
import javafx.application.Application;

/**
 * The jar's entry point. A plain class, because a main class that extends {@code Application} does
 * not start from the class path ("JavaFX runtime components are missing").
 *
 * <p>When the desktop cannot be reached — no GTK 3 library, no display — JavaFX throws from
 * {@code launch} with a stack trace that names neither cause's remedy. The launcher turns those two
 * into one sentence on stderr and exit code {@value #UNAVAILABLE}; anything else still surfaces whole.
 */
public final class Launcher {
    /** The exit code when the desktop is not usable: the CLI's "storage or file error / unavailable". */
    public static final int UNAVAILABLE = 3;

    /**
     * JavaFX warns "Unsupported JavaFX configuration: classes were loaded from 'unnamed module'" on every
     * start from a class path (the shaded jar, the jpackage image). That is how this console is meant to
     * run (decision 0417), so the one warning is filtered; every other JavaFX log line stays. Held here
     * because java.util.logging keeps loggers only weakly.
     */
    private static final Logger JAVAFX_LOG = Logger.getLogger("javafx");
    /**
     * The JDK's preferences say "INFO: Created user preferences directory." on a first start, on stderr, in
     * the JDK's log format: a fact about the JDK, not the console (issue 31). Only its warnings stay.
     */
    private static final Logger PREFS_LOG = Logger.getLogger("java.util.prefs");

    private Launcher() {}

    public static void main(String[] args) {
        quietenClassPathWarning();
        quietenPreferencesNotice();
        CloseOnSignal.install();
        try {
            Application.launch(ConsoleApp.class, args);
        } catch (RuntimeException e) {
            Optional<String> sentence = whyTheDesktopIsUnusable(e);
            if (sentence.isEmpty()) {
                throw e;
            }
            System.err.println("sovereign console: " + sentence.get());
            System.exit(UNAVAILABLE);
        }
    }

    static void quietenClassPathWarning() {
        JAVAFX_LOG.setFilter(r -> r.getMessage() == null
                || !r.getMessage().startsWith("Unsupported JavaFX configuration: classes were loaded from"));
    }

    static void quietenPreferencesNotice() {
        PREFS_LOG.setLevel(Level.WARNING);
    }

    /** One sentence for a start-up failure that is the machine's, not the console's; empty otherwise. */
    static Optional<String> whyTheDesktopIsUnusable(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            String message = String.valueOf(t.getMessage());
            if (message.contains("Unable to load glass GTK library")
                    || (t instanceof UnsatisfiedLinkError && message.contains("gtk"))) {
                return Optional.of("the desktop console needs the GTK 3 library, which this machine does not have;"
                        + " install it (Debian/Ubuntu: sudo apt-get install libgtk-3-0) and start it again.");
            }
            if (message.contains("Unable to open DISPLAY")) {
                return Optional.of("the desktop console needs a graphical display and there is none"
                        + " (DISPLAY is not set or not reachable); start it from a desktop session, or under Xvfb"
                        + " (xvfb-run -a ./sovereign console).");
            }
        }
        return Optional.empty();
    }
}
