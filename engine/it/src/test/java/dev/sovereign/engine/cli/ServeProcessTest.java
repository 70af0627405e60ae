package dev.sovereign.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.process.ProcessInfo;
import dev.sovereign.engine.run.AssignmentState;
import dev.sovereign.engine.testing.ChildJvm;
import dev.sovereign.engine.testing.Poll;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Black-box: {@code sovereign serve --stdio} as real OS processes driven through their standard input and
 * output, on one SQLite file, with the test's own engine reading the ledger (and, for the takeover, a settable
 * clock of its own: the dead server's clock is not needed to decide that its lease expired).
 */
class ServeProcessTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final List<ServeChild> children = new ArrayList<>();
    private final List<Engine> engines = new ArrayList<>();

    @AfterEach
    void stopChildren() {
        children.forEach(ServeChild::close);
        engines.forEach(Engine::close);
    }

    private ServeChild serve() {
        ServeChild s = ServeChild.start(temp.dir(), temp.file());
        children.add(s);
        return s;
    }

    /** The test's own engine on the file (no heartbeat), creating the ledger on first use. */
    private Engine engine(Clock clock) {
        Engine e = Engine.open(EngineConfig.forDatabase(temp.file())
                .clock(clock)
                .heartbeat(false)
                .build());
        engines.add(e);
        return e;
    }

    @Test
    void oneProcessIdentityAnswersEveryRequestAndABadLineChangesNothing() {
        engine(Clock.systemUTC()); // creates the ledger
        ServeChild serve = serve();
        JsonNode me = serve.call("identity");
        String identity = me.get("process").asText();
        assertThat(identity).startsWith("proc_");
        assertThat(me.get("pid").asLong()).isEqualTo(serve.process().pid());

        // bad lines: one error line each, and serving goes on
        serve.send("this is not json");
        JsonNode notJson = serve.answer();
        assertThat(notJson.get("id").isNull()).isTrue();
        assertThat(notJson.get("ok").asBoolean()).isFalse();
        assertThat(notJson.get("error").asText()).isEqualTo("bad_request");
        assertThat(notJson.get("exit_code").asInt()).isEqualTo(2);
        assertThat(notJson.get("message").asText()).startsWith("Line 2 is not JSON");
        serve.send("[1, 2]");
        assertThat(serve.answer().get("error").asText()).isEqualTo("bad_request");
        assertThat(serve.call("lease.steal", "actor", "operator").get("message").asText())
                .startsWith("Unknown op 'lease.steal'");
        assertThat(serve.call("lease.acquire").get("message").asText())
                .isEqualTo("Op 'lease.acquire' needs the field \"actor\".");
        JsonNode badTtl = serve.call("lease.acquire", "actor", "operator", "ttl", "5x");
        assertThat(badTtl.get("error").asText()).isEqualTo("bad_usage");
        assertThat(badTtl.get("message").asText()).contains("'5x' is not a duration");

        assertThat(serve.call("actor.add", "actor", "operator").get("actor").asText())
                .isEqualTo("operator");
        JsonNode lease = serve.call("lease.acquire", "actor", "operator", "ttl", "30s");
        assertThat(lease.get("ok").asBoolean()).as("%s", lease).isTrue();
        assertThat(lease.get("process").asText()).isEqualTo(identity);
        long token = lease.get("token").asLong();

        // the process's heartbeat keeps the lease alive between requests
        Poll.until(
                () -> serve.call("lease.list")
                                .get("results")
                                .get(0)
                                .get("renewed_at")
                                .asLong()
                        > lease.get("acquired_at").asLong(),
                Duration.ofSeconds(30),
                () -> "a heartbeat to renew the lease");

        String assignment = serve.call("assign", "actor", "operator", "provider", "scripted:ms=50,outcome=completed")
                .get("assignment")
                .asText();
        JsonNode run = serve.call("run", "assignment", assignment);
        assertThat(run.get("ok").asBoolean()).as("%s", run).isTrue();
        assertThat(run.get("state").asText()).isEqualTo("COMPLETED");
        assertThat(run.get("receipt").get("status").asText()).isEqualTo("completed");
        assertThat(run.get("receipt").get("process").asText()).isEqualTo(identity);
        assertThat(run.get("attempt").get("lease_token").asLong())
                .as("the run used the lease it holds")
                .isEqualTo(token);
        JsonNode held = serve.call("lease.list").get("results");
        assertThat(held).hasSize(1);
        assertThat(held.get(0).get("token").asLong())
                .as("the run left the held lease held")
                .isEqualTo(token);

        String message = serve.call("send", "from", "ops", "to", "operator", "subject", "rotate keys")
                .get("message")
                .asText();
        JsonNode claim = serve.call("claim", "message", message, "actor", "operator");
        assertThat(claim.get("process").asText()).isEqualTo(identity);
        JsonNode done = serve.call(
                "complete", "message", message, "token", claim.get("token").asLong());
        assertThat(done.get("state").asText()).as("%s", done).isEqualTo("DONE");

        assertThat(serve.call("status").get("processes").get("live").asLong()).isGreaterThanOrEqualTo(1);
        assertThat(serve.call("identity").get("process").asText()).isEqualTo(identity);

        assertThat(serve.endInput())
                .as("exit after end of input; stderr: %s", serve.err())
                .isZero();
        assertThat(serve.err()).isEmpty();

        // decision 0317: what the process held is released, and the process is marked stopped
        Engine reader = engine(Clock.systemUTC());
        assertThat(reader.leases().list()).isEmpty();
        assertThat(reader.processes().find(identity))
                .get()
                .extracting(ProcessInfo::stoppedAt)
                .isNotNull();
        assertThat(reader.journal().forResource("actor", "operator")).anySatisfy(e -> {
            assertThat(e.kind()).isEqualTo(EventKind.LEASE_RELEASED);
            assertThat(e.processIdentity()).isEqualTo(identity);
            assertThat(e.token()).isEqualTo(token);
        });
    }

    /**
     * Two servers contend for one actor: the second is refused with the first's token. The first is then killed
     * (no release, no clean close): its lease stays until its expiry, which the test's own engine reaches with a
     * settable clock and takes over; the second, still serving, sees the new holder's token.
     */
    @Test
    void aSecondServeIsRefusedWithTheFirstsTokenAndAKilledServesLeaseIsTakenOverAtItsExpiry() throws Exception {
        SettableClock clock = new SettableClock(System.currentTimeMillis());
        Engine other = engine(clock);
        other.actors().add("operator", "temporary");
        ServeChild first = serve();
        ServeChild second = serve();
        JsonNode lease = first.call("lease.acquire", "actor", "operator", "ttl", "1m");
        assertThat(lease.get("ok").asBoolean()).as("%s", lease).isTrue();
        long token = lease.get("token").asLong();

        JsonNode refused = second.call("lease.acquire", "actor", "operator", "ttl", "1m");

        assertThat(refused.get("ok").asBoolean()).isFalse();
        assertThat(refused.get("exit_code").asInt()).isEqualTo(1);
        assertThat(refused.get("refused").asBoolean()).isTrue();
        assertThat(refused.get("category").asText()).isEqualTo("actor_lease_held");
        assertThat(refused.get("current_token").asLong()).isEqualTo(token);
        assertThat(refused.get("message").asText())
                .contains(lease.get("process").asText());

        ChildJvm.signal(first.process(), "KILL");
        assertThat(first.process().waitFor(30, TimeUnit.SECONDS)).isTrue();

        Lease dead = other.leases().current("operator").orElseThrow();
        assertThat(dead.token()).as("a killed server releases nothing").isEqualTo(token);
        clock.set(dead.expiresAt() - 1);
        assertThatThrownBy(() -> other.leases().acquire("operator", Duration.ofMinutes(1)))
                .isInstanceOfSatisfying(Refusal.class, r -> {
                    assertThat(r.category()).isEqualTo(RefusalCategory.ACTOR_LEASE_HELD);
                    assertThat(r.currentToken()).isEqualTo(token);
                });
        clock.set(dead.expiresAt());
        Lease taken = other.leases().acquire("operator", Duration.ofMinutes(1));
        assertThat(taken.token()).isGreaterThan(token);
        assertThat(taken.process()).isEqualTo(other.processIdentity());

        assertThat(second.call("lease.acquire", "actor", "operator", "ttl", "1m")
                        .get("current_token")
                        .asLong())
                .isEqualTo(taken.token());
        assertThat(second.endInput()).as("stderr: %s", second.err()).isZero();
    }

    @Test
    void sigtermCancelsTheRunInProgressAnswersItAndReleasesTheLease() throws Exception {
        Engine reader = engine(Clock.systemUTC());
        reader.actors().add("operator", "temporary");
        String assignment = reader.runs()
                .assign("operator", "scripted:ms=600000,outcome=completed", null)
                .id();
        ServeChild serve = serve();
        serve.send("{\"id\": 7, \"op\": \"run\", \"assignment\": \"" + assignment + "\", \"ttl\": \"1m\"}");
        Poll.until(
                () -> reader.runs().get(assignment).orElseThrow().state() == AssignmentState.RUNNING,
                Duration.ofSeconds(60),
                () -> "the run to start; stderr: " + serve.err());

        ChildJvm.signal(serve.process(), "TERM");

        JsonNode run = serve.answer();
        assertThat(run.get("id").asInt()).isEqualTo(7);
        assertThat(run.get("ok").asBoolean())
                .as("a committed end is never a failure: %s", run)
                .isTrue();
        assertThat(run.get("interrupted").asBoolean()).isTrue();
        assertThat(run.get("exit_code").asInt()).isEqualTo(ExitCode.INTERRUPTED);
        assertThat(run.get("state").asText()).isEqualTo("FAILED");
        assertThat(run.get("receipt").get("failure_category").asText()).isEqualTo("cancelled");
        assertThat(serve.awaitExit()).as("stderr: %s", serve.err()).isZero();
        assertThat(reader.leases().list()).isEmpty();
    }
}
