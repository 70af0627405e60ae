package dev.sovereign.console.shell;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/** The console's views, in navigation order; the ordinal + 1 is the Ctrl shortcut digit (the tenth page's is 0). */
public enum Page {
    LEASES("Leases", "Who hosts each actor, with token and expiry countdown"),
    TIMELINE("Timeline", "Who held each actor when: takeovers, renewals and rejections"),
    REJECTIONS("Rejections", "Refused writes: presented token vs current token, in words"),
    RUNS("Runs", "Assignments, attempts and receipts; worker-lost recoveries flagged"),
    MAILBOX("Mailbox", "Messages by state with claim holder, token and expiry"),
    PROCESSES("Processes", "Registered processes: live, stale or stopped"),
    SUPERVISOR("Supervisor", "The last supervisor tick's report"),
    LAB("Lab", "Real contention on demand: start, pause, kill and skew workers; run teaching scenarios"),
    TRENDS("Trends", "The last hour a minute at a time: grants, takeovers, refusals, lost runs, journal size"),
    /** The tenth page: Ctrl+0. */
    JOURNAL(
            "Journal",
            "Every journal event as it is written: live tail, filters by kind, actor, process and time, export"),
    /** One actor's page (opened from a link; not in the navigation). */
    ACTOR("Actor", "One actor: its holds, tokens, runs, refusals and journal rows", false),
    /** One process's page (opened from a link; not in the navigation). */
    PROCESS("Process", "One process: what it is, what it holds, what it ran, its journal rows", false);

    private final String title;
    private final String description;
    private final boolean inNavigation;

    Page(String title, String description) {
        this(title, description, true);
    }

    Page(String title, String description, boolean inNavigation) {
        this.title = title;
        this.description = description;
        this.inNavigation = inNavigation;
    }

    /** The pages of the navigation and the View menu, in order (an actor's or a process's page is reached by a link). */
    public static List<Page> navigation() {
        return Arrays.stream(values()).filter(p -> p.inNavigation).toList();
    }

    /** Whether the page has a navigation button and a Ctrl+digit shortcut. */
    public boolean inNavigation() {
        return inNavigation;
    }

    public String title() {
        return title;
    }

    public String description() {
        return description;
    }

    /** The digit of this page's Ctrl shortcut: 1..9, then 0 for the tenth, as on the keyboard's row of digits. */
    public int shortcutDigit() {
        return (ordinal() + 1) % 10;
    }

    /** The id views and tests use: {@code leases}, {@code timeline}, ... */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }
}
