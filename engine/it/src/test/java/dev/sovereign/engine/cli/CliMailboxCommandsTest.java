package dev.sovereign.engine.cli;

import static dev.sovereign.engine.cli.CliHarness.fieldNames;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sovereign.engine.cli.CliHarness.Result;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The mailbox commands through picocli, in-process, on a real database file and a settable clock. */
class CliMailboxCommandsTest {
    static final List<String> CLAIM_FIELDS = List.of("message", "actor", "process", "token", "expires_at");
    static final List<String> MESSAGE_FIELDS = List.of(
            "message",
            "sender",
            "recipient",
            "subject",
            "body",
            "state",
            "claim_actor",
            "claim_process",
            "claim_token",
            "claim_expires_at",
            "claim_expired",
            "retry_count",
            "max_retries",
            "created_at",
            "updated_at");

    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final SettableClock clock = new SettableClock();
    private CliHarness cli;

    @BeforeEach
    void setUp() {
        cli = new CliHarness(temp.dir(), clock);
        cli.ok("init");
        cli.ok("actor", "add", "operator");
    }

    private String send(String... extra) {
        List<String> args = new ArrayList<>(
                List.of("send", "--from", "ops", "--to", "operator", "--subject", "rotate keys", "--json"));
        args.addAll(List.of(extra));
        return cli.ok(args.toArray(String[]::new)).onlyJson().get("message").asText();
    }

    private long claim(String process, String message, String ttl) {
        return cli.ok("--process", process, "claim", message, "--actor", "operator", "--ttl", ttl, "--json")
                .onlyJson()
                .get("token")
                .asLong();
    }

    @Test
    void sendPrintsTheNewMessageAndTheInboxListsIt() {
        Result sent = cli.ok(
                "send", "--from", "ops", "--to", "operator", "--subject", "rotate keys", "--body", "before Friday");
        assertThat(sent.out())
                .startsWith("Message sent.")
                .containsPattern("message +msg_")
                .containsPattern("state +NEW")
                .containsPattern("to +operator")
                .containsPattern("retries +0 of 3");

        Result inbox = cli.ok("inbox", "operator");
        assertThat(inbox.outLines()).hasSize(2);
        assertThat(inbox.outLines().get(0))
                .matches("MESSAGE +STATE +FROM +RETRIES +CLAIMED BY +TOKEN +CLAIM EXPIRES" + " +SUBJECT");
        assertThat(inbox.outLines().get(1)).startsWith("msg_").contains("NEW").endsWith("rotate keys");

        JsonNode m = cli.ok("inbox", "operator", "--json").onlyJson();
        assertThat(fieldNames(m)).containsExactlyElementsOf(MESSAGE_FIELDS);
        assertThat(m.get("state").asText()).isEqualTo("NEW");
        assertThat(m.get("body").asText()).isEqualTo("before Friday");
        assertThat(m.get("max_retries").asInt()).isEqualTo(3);
        assertThat(m.get("claim_token").isNull()).isTrue();
        assertThat(m.get("created_at").asLong()).isEqualTo(clock.millis());
    }

    @Test
    void sendClaimCompleteRoundTripLeavesTheMessageDone() {
        String message = send();
        cli.ok("--process", "proc_a", "lease", "acquire", "operator", "--ttl", "1m");

        Result claimed = cli.ok("--process", "proc_a", "claim", message, "--actor", "operator", "--ttl", "30s");
        assertThat(claimed.out())
                .startsWith("Message claimed.")
                .containsPattern("token +2\\b")
                .contains("(in 30s)")
                .contains("sovereign --process proc_a complete " + message + " --token 2");

        JsonNode again = cli.ok("--process", "proc_a", "claim", message, "--actor", "operator", "--json")
                .onlyJson();
        assertThat(fieldNames(again)).containsExactlyElementsOf(CLAIM_FIELDS);
        assertThat(again.get("token").asLong())
                .as("a retried claim keeps its token")
                .isEqualTo(2);
        assertThat(again.get("process").asText()).isEqualTo("proc_a");
        assertThat(again.get("expires_at").asLong())
                .as("now + the default 10 s would shorten the 30 s claim it renews:"
                        + " on SQLite a claim's expiry only moves forward, as docs/cli.md says")
                .isEqualTo(clock.millis() + 30_000);

        JsonNode done = cli.ok("--process", "proc_a", "complete", message, "--token", "2", "--json")
                .onlyJson();
        assertThat(fieldNames(done)).containsExactlyElementsOf(MESSAGE_FIELDS);
        assertThat(done.get("state").asText()).isEqualTo("DONE");
        assertThat(done.get("claim_token").asLong()).isEqualTo(2);

        assertThat(cli.ok("inbox", "operator").out())
                .isEqualTo("The inbox of operator is empty." + System.lineSeparator());
        Result listed = cli.ok("messages");
        assertThat(listed.outLines().get(0))
                .contains("TO")
                .contains("CLAIMED BY")
                .contains("TOKEN");
        assertThat(listed.outLines().get(1)).contains("DONE").contains("proc_a").contains(" 2 ");
        assertThat(cli.ok("events", "--json").json())
                .extracting(e -> e.get("kind").asText())
                .contains("MESSAGE_SENT", "CLAIM_GRANTED", "MESSAGE_DONE");
    }

    @Test
    void aStaleCompleteTokenExitsOneFencingTokenStaleAndShowsInRejections() {
        String message = send();
        cli.ok("--process", "proc_a", "lease", "acquire", "operator", "--ttl", "5s");
        long stale = claim("proc_a", message, "5s");
        clock.advance(Duration.ofSeconds(6));
        cli.ok("--process", "proc_b", "lease", "acquire", "operator", "--ttl", "1m");
        long fresh = claim("proc_b", message, "30s");
        assertThat(fresh).isGreaterThan(stale);

        Result r = cli.run("--process", "proc_a", "complete", message, "--token", Long.toString(stale), "--json");

        assertThat(r.exit()).isEqualTo(ExitCode.REFUSED);
        assertThat(r.errLines())
                .singleElement()
                .asString()
                .startsWith(
                        "refused (fencing_token_stale): Cannot complete message " + message + " with token " + stale);
        JsonNode refusal = r.onlyJson();
        assertThat(fieldNames(refusal)).containsExactlyElementsOf(CliCommandsTest.REFUSAL_FIELDS);
        assertThat(refusal.get("category").asText()).isEqualTo("fencing_token_stale");
        assertThat(refusal.get("presented_token").asLong()).isEqualTo(stale);
        assertThat(refusal.get("current_token").asLong()).isEqualTo(fresh);

        JsonNode rejection = cli.ok("rejections", "--json").onlyJson();
        assertThat(rejection.get("category").asText()).isEqualTo("fencing_token_stale");
        assertThat(rejection.get("resource_id").asText()).isEqualTo(message);
        assertThat(rejection.get("process_identity").asText()).isEqualTo("proc_a");
        assertThat(rejection.get("presented_token").asLong()).isEqualTo(stale);
        assertThat(rejection.get("current_token").asLong()).isEqualTo(fresh);

        JsonNode m = cli.ok("messages", "--json").onlyJson();
        assertThat(m.get("state").asText()).isEqualTo("CLAIMED");
        assertThat(m.get("claim_process").asText()).isEqualTo("proc_b");
        cli.ok("--process", "proc_b", "complete", message, "--token", Long.toString(fresh));
    }

    @Test
    void aCompleteAfterTheLeaseWasTakenOverExitsOneActorLeaseLost() {
        String message = send();
        cli.ok("--process", "proc_a", "lease", "acquire", "operator", "--ttl", "5s");
        long token = claim("proc_a", message, "1m");
        clock.advance(Duration.ofSeconds(6));
        cli.ok("--process", "proc_b", "lease", "acquire", "operator", "--ttl", "1m");

        Result r = cli.run("--process", "proc_a", "complete", message, "--token", Long.toString(token));

        assertThat(r.exit()).isEqualTo(ExitCode.REFUSED);
        assertThat(r.errLines()).singleElement().asString().startsWith("refused (actor_lease_lost): ");
        assertThat(cli.ok("rejections", "--json").onlyJson().get("category").asText())
                .isEqualTo("actor_lease_lost");
    }

    @Test
    void deadLetterRequeuesUntilMaxRetriesThenTheMessageIsDead() {
        String message = send("--max-retries", "1");
        cli.ok("--process", "proc_a", "lease", "acquire", "operator", "--ttl", "1m");

        long first = claim("proc_a", message, "30s");
        Result requeued = cli.ok("--process", "proc_a", "dead-letter", message, "--token", Long.toString(first));
        assertThat(requeued.out())
                .startsWith("Message re-queued (retry 1 of 1): it is NEW again.")
                .containsPattern("state +NEW");

        long second = claim("proc_a", message, "30s");
        assertThat(second).isGreaterThan(first);
        JsonNode dead = cli.ok(
                        "--process", "proc_a", "dead-letter", message, "--token", Long.toString(second), "--json")
                .onlyJson();
        assertThat(dead.get("state").asText()).isEqualTo("DEAD");
        assertThat(dead.get("retry_count").asInt()).isEqualTo(1);
        assertThat(dead.get("claim_token").asLong()).isEqualTo(second);

        Result again = cli.run("--process", "proc_a", "complete", message, "--token", Long.toString(second));
        assertThat(again.exit()).isEqualTo(ExitCode.REFUSED);
        assertThat(again.errLines()).singleElement().asString().startsWith("refused (message_finished): ");
        assertThat(cli.ok("messages", "--state", "dead", "--json")
                        .onlyJson()
                        .get("message")
                        .asText())
                .isEqualTo(message);
        assertThat(cli.ok("messages", "--state", "NEW").out()).isEqualTo("No messages match." + System.lineSeparator());
    }

    @Test
    void aClaimByAProcessThatDoesNotHostTheActorIsRefusedNotHosting() {
        String message = send();

        Result r = cli.run("--process", "proc_a", "claim", message, "--actor", "operator");

        assertThat(r.exit()).isEqualTo(ExitCode.REFUSED);
        assertThat(r.errLines()).singleElement().asString().startsWith("refused (not_hosting): ");
    }

    @Test
    void aLiveClaimOfAnotherProcessIsRefusedMessageClaimed() {
        String message = send();
        cli.ok("--process", "proc_a", "lease", "acquire", "operator", "--ttl", "5s");
        claim("proc_a", message, "1m");
        clock.advance(Duration.ofSeconds(6));
        cli.ok("--process", "proc_b", "lease", "acquire", "operator", "--ttl", "1m");

        Result r = cli.run("--process", "proc_b", "claim", message, "--actor", "operator", "--json");

        assertThat(r.exit()).isEqualTo(ExitCode.REFUSED);
        assertThat(r.onlyJson().get("category").asText()).isEqualTo("message_claimed");
        assertThat(r.onlyJson().get("current_token").asLong()).isEqualTo(2);
    }

    @Test
    void messagesShowsTheClaimHolderTokenAndAnExpiredClaim() {
        String message = send();
        cli.ok("--process", "proc_a", "lease", "acquire", "operator", "--ttl", "1m");
        claim("proc_a", message, "5s");
        clock.advance(Duration.ofSeconds(7));

        Result r = cli.ok("messages");
        assertThat(r.outLines().get(1)).contains("CLAIMED").contains("proc_a").contains("expired 2s ago");
        JsonNode m = cli.ok("messages", "--json").onlyJson();
        assertThat(m.get("claim_process").asText()).isEqualTo("proc_a");
        assertThat(m.get("claim_token").asLong()).isEqualTo(2);
        assertThat(m.get("claim_expired").asBoolean()).isTrue();
        assertThat(cli.ok("messages", "--actor", "someone-else").out()).startsWith("No messages match.");
    }
}
