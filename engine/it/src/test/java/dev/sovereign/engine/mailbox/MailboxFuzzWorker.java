package dev.sovereign.engine.mailbox;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.lease.Lease;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

/**
 * A child JVM for {@link MailboxFuzzTest}: hosts whichever actors it can get, claims their messages
 * and finishes them, and now and then stalls past its TTLs on purpose so another process takes over.
 * Its heartbeat is off: it renews its leases itself, so a stall (or a SIGSTOP from the test) really
 * lets them expire. It prints one line per outcome for the test to cross-check against the journal:
 * <pre>
 *   IDENTITY proc_...
 *   DONE|RETRIED|DEAD message token
 *   REFUSED complete|dead-letter message token category
 *   CLAIM_REFUSED message category
 * </pre>
 * Sleeping is this worker's simulated work and its stalls; it never waits for a result that way.
 */
public final class MailboxFuzzWorker {
    private MailboxFuzzWorker() {}

    public static void main(String[] args) throws Exception {
        Path database = Path.of(args[0]);
        Path stopFile = Path.of(args[1]);
        String label = args[2];
        long seed = Long.parseLong(args[3]);
        Duration leaseTtl = Duration.ofMillis(Long.parseLong(args[4]));
        Duration claimTtl = Duration.ofMillis(Long.parseLong(args[5]));
        long stallMs = Long.parseLong(args[6]);
        List<String> actors = List.of(args[7].split(","));
        Random random = new Random(seed);

        EngineConfig config = EngineConfig.forDatabase(database)
                .heartbeat(false)
                .busyBound(Duration.ofSeconds(30))
                .defaultTtl(claimTtl)
                .processKind("test")
                .processLabel(label)
                .build();
        try (Engine engine = Engine.openExisting(config)) {
            say("IDENTITY " + engine.processIdentity());
            Map<String, Long> hosting = new HashMap<>();
            while (!Files.exists(stopFile)) {
                keepOrTakeLeases(engine, actors, hosting, leaseTtl);
                if (hosting.isEmpty()) {
                    Thread.sleep(10);
                    continue;
                }
                List<String> mine = new ArrayList<>(hosting.keySet());
                String actor = mine.get(random.nextInt(mine.size()));
                Optional<Message> next = pick(engine, actor, random);
                if (next.isEmpty()) {
                    Thread.sleep(5);
                    continue;
                }
                work(engine, next.get(), actor, random, stallMs);
            }
        }
    }

    private static void keepOrTakeLeases(Engine engine, List<String> actors, Map<String, Long> hosting, Duration ttl) {
        long now = System.currentTimeMillis();
        for (String actor : actors) {
            Long token = hosting.get(actor);
            try {
                if (token != null) {
                    engine.leases().renew(actor, token, ttl);
                } else {
                    Optional<Lease> current = engine.leases().current(actor);
                    if (current.isEmpty() || current.get().isExpiredAt(now)) {
                        hosting.put(actor, engine.leases().acquire(actor, ttl).token());
                    }
                }
            } catch (Refusal r) {
                hosting.remove(actor);
            }
        }
    }

    /** A message this process could claim: new, or claimed with an expiry that has passed. */
    private static Optional<Message> pick(Engine engine, String actor, Random random) {
        long now = System.currentTimeMillis();
        List<Message> claimable = engine.mailbox().inbox(actor).stream()
                .filter(m -> m.state() == MessageState.NEW || m.claim().isExpiredAt(now))
                .limit(4)
                .toList();
        return claimable.isEmpty() ? Optional.empty() : Optional.of(claimable.get(random.nextInt(claimable.size())));
    }

    private static void work(Engine engine, Message m, String actor, Random random, long stallMs)
            throws InterruptedException {
        Claim claim;
        try {
            // One claim in three outlives a stall: the worker then comes back with a claim that is still
            // current but a lease that moved (actor_lease_lost) rather than a swept claim (stale token).
            claim = random.nextInt(3) == 0
                    ? engine.mailbox().claim(m.id(), actor, Duration.ofMillis(stallMs * 2))
                    : engine.mailbox().claim(m.id(), actor);
        } catch (Refusal r) {
            say("CLAIM_REFUSED " + m.id() + " " + r.category().code());
            return;
        }
        if (random.nextInt(10) == 0) {
            Thread.sleep(stallMs); // a deliberate stall past every TTL: another process takes over meanwhile
        } else {
            Thread.sleep(random.nextInt(3));
        }
        boolean giveUp = random.nextInt(5) == 0;
        try {
            if (giveUp) {
                Message after = engine.mailbox().deadLetter(m.id(), claim.token());
                say((after.state() == MessageState.DEAD ? "DEAD " : "RETRIED ") + m.id() + " " + claim.token());
            } else {
                engine.mailbox().complete(m.id(), claim.token());
                say("DONE " + m.id() + " " + claim.token());
            }
        } catch (Refusal r) {
            say("REFUSED " + (giveUp ? "dead-letter " : "complete ") + m.id() + " " + claim.token() + " "
                    + r.category().code());
        }
    }

    private static void say(String line) {
        System.out.println(line);
    }
}
