package dev.sovereign.engine.admin;

import java.util.Objects;

/**
 * A process as the console names it: the fencing identity ({@code proc_<uuid>}) plus, for display
 * only, its label, PID and host (the OS reuses PIDs; fencing never does). Immutable.
 *
 * @param identity the fencing identity; never null
 * @param label    the human label the process registered ({@code worker 4242}), or null when unknown
 * @param pid      the OS process id at registration, or null
 * @param host     the host name at registration, or null
 */
public record ProcessRef(String identity, String label, Long pid, String host) {
    public ProcessRef {
        Objects.requireNonNull(identity, "identity");
    }

    /**
     * This machine's host name as a process registers it ({@code host}): {@code $HOSTNAME}, else the kernel's
     * name, else {@code localhost}; never a DNS look-up (it can hang on a machine without network). The console
     * compares it with a process's host to tell whether that process's files can be on this machine.
     */
    public static String thisHost() {
        String env = System.getenv("HOSTNAME");
        if (env != null && !env.isBlank()) {
            return env.strip();
        }
        try {
            return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/sys/kernel/hostname"))
                    .strip();
        } catch (java.io.IOException | RuntimeException e) {
            return "localhost";
        }
    }

    /** An identity with nothing else known (the process row is missing). */
    public static ProcessRef unknown(String identity) {
        return new ProcessRef(identity, null, null, null);
    }

    /** {@code proc_} and the first 8 characters of the UUID: enough to tell processes apart at a glance. */
    public String shortId() {
        return identity.length() > 13 ? identity.substring(0, 13) + "\u2026" : identity;
    }

    /**
     * The label when there is one ({@code worker 4242}), else the short id. A CLI call's label is its command
     * ({@code sovereign lease acquire}), the same for every call: it gets the short id too, so two CLI holders
     * never look alike ({@code sovereign lease acquire (proc_alice)}).
     */
    public String name() {
        if (label == null || label.isBlank()) {
            return shortId();
        }
        return label.startsWith("sovereign ") ? displayName() : label;
    }

    /** {@code worker 4242 (proc_3f2a1b9c…)}, or just the short id when there is no label. */
    public String displayName() {
        return label == null || label.isBlank() ? shortId() : label + " (" + shortId() + ")";
    }
}
