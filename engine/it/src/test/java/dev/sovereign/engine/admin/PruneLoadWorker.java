package dev.sovereign.engine.admin;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.mailbox.Claim;
import dev.sovereign.engine.mailbox.Message;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.AssignmentState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A child process that works on a ledger while another process prunes it ({@code PruneUnderLoadTest}): on its own
 * actors it grants and releases a lease (checking each token is greater than the last), runs a job to its end and
 * sends, claims and completes a message, round after round, until its stop-file appears. Any failure is counted.
 * Prints {@code READY} once its engine is open, and {@code DONE <rounds> <runs> <messages> <errors>} at the end.
 *
 * <p>Arguments: database, stop-file, worker index.
 */
public final class PruneLoadWorker {
    private PruneLoadWorker() {}

    public static void main(String[] args) throws Exception {
        Path database = Path.of(args[0]);
        Path stop = Path.of(args[1]);
        String w = "w" + args[2];
        long rounds = 0;
        long runs = 0;
        long messages = 0;
        long errors = 0;
        try (Engine e = Engine.open(EngineConfig.forDatabase(database)
                .heartbeat(true)
                .busyBound(Duration.ofSeconds(60))
                .processLabel("prune load " + w)
                .build())) {
            for (String suffix : new String[] {"-lock", "-jobs", "-mail"}) {
                e.actors().add(w + suffix);
            }
            System.out.println("READY");
            System.out.flush();
            long last = 0;
            long deadline = System.nanoTime() + 300_000_000_000L;
            while (!Files.exists(stop) && System.nanoTime() < deadline) {
                rounds++;
                try {
                    Lease l = e.leases().acquire(w + "-lock", Duration.ofSeconds(5));
                    if (l.token() <= last) {
                        System.out.println("TOKEN went back: " + l.token() + " after " + last);
                        errors++;
                    }
                    last = l.token();
                    e.leases().release(w + "-lock", l.token());

                    Assignment a = e.runs().assign(w + "-jobs", "scripted:outcome=completed");
                    e.runs().runAssignment(a.id(), Duration.ofSeconds(5));
                    e.leases().current(w + "-jobs").ifPresent(x -> e.leases().release(w + "-jobs", x.token()));
                    if (e.runs().get(a.id()).map(Assignment::state).orElse(null) != AssignmentState.COMPLETED) {
                        System.out.println("RUN " + a.id() + " did not complete");
                        errors++;
                    }
                    runs++;

                    Message m = e.mailbox().send(w, w + "-mail", "s" + rounds, "b", 3);
                    Lease host = e.leases().acquire(w + "-mail", Duration.ofSeconds(5));
                    Claim c = e.mailbox().claim(m.id(), w + "-mail");
                    e.mailbox().complete(m.id(), c.token());
                    e.leases().release(w + "-mail", host.token());
                    messages++;
                } catch (RuntimeException ex) {
                    System.out.println("ERROR " + ex);
                    errors++;
                }
            }
        }
        System.out.println("DONE " + rounds + " " + runs + " " + messages + " " + errors);
        System.out.flush();
    }
}
