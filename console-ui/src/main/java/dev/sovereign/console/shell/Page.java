package dev.sovereign.console.shell;

/** The console's views, in navigation order; the ordinal + 1 is the Ctrl shortcut digit. */
public enum Page {
    LEASES("Leases", "Who hosts each actor, with token and expiry countdown"),
    TIMELINE("Timeline", "Who held each actor when: takeovers, renewals and rejections"),
    REJECTIONS("Rejections", "Refused writes: presented token vs current token, in words"),
    RUNS("Runs", "Assignments, attempts and receipts; worker-lost recoveries flagged"),
    MAILBOX("Mailbox", "Messages by state with claim holder, token and expiry"),
    PROCESSES("Processes", "Registered processes: live, stale or stopped"),
    SUPERVISOR("Supervisor", "The last supervisor tick's report"),
    LAB("Lab", "Real contention on demand: start, pause, kill and skew workers; run teaching scenarios"),
    TRENDS("Trends", "The last hour a minute at a time: grants, takeovers, refusals, lost runs, journal size");

    private final String title;
    private final String description;

    Page(String title, String description) {
        this.title = title;
        this.description = description;
    }

    public String title() {
        return title;
    }

    public String description() {
        return description;
    }

    /** The digit of this page's Ctrl shortcut (1..9). */
    public int shortcutDigit() {
        return ordinal() + 1;
    }

    /** The id views and tests use: {@code leases}, {@code timeline}, ... */
    public String id() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
