package dev.sovereign.engine.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Real "other hosts" for multi-host tests: each host is a Linux network namespace joined to this one by its own
 * veth pair, with a /30 of its own in 10.201.0.0/16 (chosen at random among those no interface here uses) — the namespace side is the host, this side is the address
 * the host reaches the server on. A worker runs on a host by starting under {@code ip netns exec}; a partition
 * is the link set down on this side ({@link #cut}), healing is setting it up again ({@link #heal}). Addresses
 * exist only inside the namespaces and links this class made; no traffic goes anywhere else.
 *
 * <p>Needs root and {@code ip} (CI runs as root); {@link #create} says why when they are missing, so a test can
 * fall back to loopback and say so in its output.
 */
public final class Hosts implements AutoCloseable {
    /** One host: its namespace, its own address and the address it reaches the server on. */
    public record Host(String name, String namespace, String address, String serverAddress, String link) {}

    private static final SecureRandom RANDOM = new SecureRandom();
    private final Map<String, Host> hosts = new LinkedHashMap<>();

    private Hosts() {}

    /** Why real hosts cannot be made here, or empty when they can. */
    public static Optional<String> unavailable() {
        if (!"root".equals(System.getProperty("user.name"))) {
            return Optional.of("network namespaces need root, and this JVM runs as " + System.getProperty("user.name"));
        }
        try {
            Result r = run(List.of("ip", "netns", "list"));
            return r.exit == 0 ? Optional.empty() : Optional.of("'ip netns list' failed: " + r.output.strip());
        } catch (IOException e) {
            return Optional.of("the 'ip' command is not available (" + e.getMessage() + ")");
        }
    }

    /** Makes one namespace per name, each with its veth pair and addresses, up and reachable. */
    public static Hosts create(String... names) throws IOException {
        Hosts made = new Hosts();
        try {
            for (String name : names) {
                made.add(name);
            }
            return made;
        } catch (IOException | RuntimeException e) {
            made.close();
            throw e;
        }
    }

    private void add(String name) throws IOException {
        // a /30 and interface names no other test JVM on this machine is using right now
        String used = run(List.of("ip", "-o", "addr", "show")).output + run(List.of("ip", "-o", "link", "show")).output;
        String tag;
        String prefix;
        int slot;
        do {
            tag = "sv" + Integer.toHexString(0x100000 + RANDOM.nextInt(0xEFFFFF)); // interface names: at most 15 chars
            prefix = "10.201." + RANDOM.nextInt(250) + ".";
            slot = RANDOM.nextInt(64);
        } while (used.contains(" " + prefix + (slot * 4 + 1) + "/")
                || used.contains(" " + prefix + (slot * 4 + 2) + "/")
                || used.contains(" " + tag + "r")
                || used.contains(" " + tag + "h"));
        String ns = "sovereign-" + tag + "-" + name;
        String here = tag + "r";
        String there = tag + "h";
        String serverAddress = prefix + (slot * 4 + 1);
        String address = prefix + (slot * 4 + 2);
        must(List.of("ip", "netns", "add", ns));
        hosts.put(name, new Host(name, ns, address, serverAddress, here));
        must(List.of("ip", "link", "add", here, "type", "veth", "peer", "name", there));
        must(List.of("ip", "link", "set", there, "netns", ns));
        must(List.of("ip", "addr", "add", serverAddress + "/30", "dev", here));
        must(List.of("ip", "link", "set", here, "up"));
        must(List.of("ip", "netns", "exec", ns, "ip", "addr", "add", address + "/30", "dev", there));
        must(List.of("ip", "netns", "exec", ns, "ip", "link", "set", there, "up"));
        must(List.of("ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up"));
    }

    public Host host(String name) {
        Host h = hosts.get(name);
        if (h == null) {
            throw new IllegalArgumentException("no host named " + name);
        }
        return h;
    }

    public List<Host> all() {
        return List.copyOf(hosts.values());
    }

    /** {@code command}, to be started so that it runs on {@code host}. */
    public List<String> on(Host host, List<String> command) {
        List<String> c = new ArrayList<>(List.of("ip", "netns", "exec", host.namespace()));
        c.addAll(command);
        return c;
    }

    /** Cuts {@code host} off: its link goes down on this side; packets to and from it are lost. */
    public void cut(Host host) throws IOException {
        must(List.of("ip", "link", "set", host.link(), "down"));
    }

    /** Heals a cut: the link comes up again with its address and route. */
    public void heal(Host host) throws IOException {
        must(List.of("ip", "link", "set", host.link(), "up"));
    }

    /** Removes every namespace (and with it each veth pair) this instance made. */
    @Override
    public void close() {
        for (Host h : hosts.values()) {
            try {
                run(List.of("ip", "netns", "del", h.namespace()));
                run(List.of("ip", "link", "del", h.link())); // normally gone with its peer already
            } catch (IOException ignored) {
                // best effort: a leftover namespace is named sovereign-sv…, easy to find and remove
            }
        }
        hosts.clear();
    }

    private record Result(int exit, String output) {}

    private static void must(List<String> command) throws IOException {
        Result r = run(command);
        if (r.exit != 0) {
            throw new IOException(String.join(" ", command) + " failed (exit " + r.exit + "): " + r.output.strip());
        }
    }

    private static Result run(List<String> command) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", command) + " did not finish in 20 s");
            }
            return new Result(p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }
}
