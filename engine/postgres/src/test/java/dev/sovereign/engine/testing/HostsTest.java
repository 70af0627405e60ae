package dev.sovereign.engine.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The "other hosts" really are elsewhere: reachable over their own link, unreachable when cut, back when healed. */
class HostsTest {
    @Test
    void aHostReachesTheServerOverItsOwnLinkLosesItWhenCutAndGetsItBackWhenHealed() throws Exception {
        assumeTrue(
                Hosts.unavailable().isEmpty(),
                () -> "no network namespaces here: " + Hosts.unavailable().get());
        try (Hosts hosts = Hosts.create("a", "b")) {
            Hosts.Host a = hosts.host("a");
            Hosts.Host b = hosts.host("b");
            assertThat(a.address()).isNotEqualTo(b.address());
            try (ServerSocket server = new ServerSocket(0, 10, InetAddress.getByName(a.serverAddress()))) {
                Thread echo = new Thread(() -> {
                    while (!server.isClosed()) {
                        try (Socket s = server.accept();
                                var in = new BufferedReader(
                                        new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
                                var out = new PrintWriter(s.getOutputStream(), true, StandardCharsets.UTF_8)) {
                            out.println("seen " + s.getInetAddress().getHostAddress() + " says " + in.readLine());
                        } catch (Exception closed) {
                            return;
                        }
                    }
                });
                echo.setDaemon(true);
                echo.start();
                int port = server.getLocalPort();

                assertThat(call(hosts, a, a.serverAddress(), port)).isEqualTo("seen " + a.address() + " says hello");
                // host B has no route to A's link: the namespaces really are apart
                assertThat(call(hosts, b, a.serverAddress(), port)).isEmpty();

                hosts.cut(a);
                assertThat(call(hosts, a, a.serverAddress(), port))
                        .as("cut off")
                        .isEmpty();

                hosts.heal(a);
                assertThat(call(hosts, a, a.serverAddress(), port)).isEqualTo("seen " + a.address() + " says hello");
            }
        }
    }

    /** Connects from inside {@code host} with bash's /dev/tcp; empty when it cannot within 2 s. */
    private static String call(Hosts hosts, Hosts.Host host, String address, int port) throws Exception {
        Process p = new ProcessBuilder(hosts.on(
                        host,
                        List.of(
                                "timeout",
                                "2",
                                "bash",
                                "-c",
                                "exec 3<>/dev/tcp/" + address + "/" + port + " && echo hello >&3 && head -n 1 <&3")))
                .redirectErrorStream(false)
                .start();
        assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
        return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    }
}
