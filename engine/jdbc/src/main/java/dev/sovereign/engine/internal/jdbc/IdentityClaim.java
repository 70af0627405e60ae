package dev.sovereign.engine.internal.jdbc;

import dev.sovereign.engine.process.ProcessInfo;

/**
 * A process acting as a fencing identity another process registered ({@code --process ID}, or
 * {@code EngineConfig.actAs} of an existing identity), and who did it as the operating system knows them.
 * A process identity is a fencing identity, not authentication: anyone who can open the ledger may claim
 * one, so the claim is written down — once as a {@code PROCESS_STARTED} event ({@link #CATEGORY}) and on
 * every fence event the claiming call writes (docs/decisions/0802-identity-claims-are-journalled.md).
 * Immutable.
 *
 * @param user    the OS user of this process ({@code user.name})
 * @param host    this host, for display
 * @param pid     this process
 * @param command what this process is (its label, e.g. {@code sovereign lease renew})
 * @param owner   the registered identity's kind, label, pid and host, as found when it was claimed
 */
public record IdentityClaim(String user, String host, long pid, String command, String owner) {
    /** The category of the claim's {@code PROCESS_STARTED} event. */
    public static final String CATEGORY = "identity_claimed";

    public static IdentityClaim of(ProcessInfo registered, String command) {
        String owner = registered.kind() + " '" + registered.label() + "' (pid " + registered.pid() + " on "
                + registered.host() + (registered.stoppedAt() == null ? "" : ", stopped") + ")";
        return new IdentityClaim(
                System.getProperty("user.name", "?"),
                JdbcProcesses.hostName(),
                ProcessHandle.current().pid(),
                command,
                owner);
    }

    /** {@code OS user U on host H (pid P, 'command')}. */
    public String claimant() {
        return "OS user " + user + " on host " + host + " (pid " + pid + ", '" + command + "')";
    }

    /** The detail of the claim's own journal event. */
    public String sentence(String identity) {
        return claimant() + " acted as " + identity + ", the identity of " + owner
                + "; a process identity is for fencing, not authentication";
    }

    /** {@code detail} of an event written under {@code claim}, naming the claimant; unchanged without one. */
    public static String attribute(String detail, IdentityClaim claim) {
        if (claim == null) {
            return detail;
        }
        String by = "by --process: " + claim.claimant();
        if (detail == null || detail.isBlank()) {
            return by;
        }
        // "…acquire it again." + "; by …" would read ".; by": the refusal's own full stop gives way
        String d = detail.strip();
        return (d.endsWith(".") ? d.substring(0, d.length() - 1) : d) + "; " + by;
    }
}
