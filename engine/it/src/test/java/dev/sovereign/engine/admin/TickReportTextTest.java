package dev.sovereign.engine.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TickReportTextTest {
    private final TickReportText text =
            new TickReportText(ZoneOffset.UTC, Map.of("proc_aaaaaaaa-1111", "worker 7101 (proc_aaaaaaaa…)")::get);

    @Test
    void everyThingATickSawOrDidBecomesOneSentence() {
        String json = "{\"at\":1800000000000,\"process\":\"proc_sup\",\"expired_leases\":[{\"actor\":\"planner\","
                + "\"process\":\"proc_bbbbbbbb-2222\",\"token\":12,\"expires_at\":1800000000000}],"
                + "\"stale_processes\":[{\"process\":\"proc_aaaaaaaa-1111\",\"pid\":7101,\"label\":\"worker 7101\","
                + "\"heartbeat_at\":1799999990000}],\"swept_claims\":[\"msg-1\"],\"recovered\":[{\"assignment\":\"as-3\","
                + "\"attempt\":\"at-3a\",\"attempt_token\":41,\"lost_process\":\"proc_aaaaaaaa-1111\",\"receipt\":7,"
                + "\"fence_was_stolen\":false}],\"retired\":[{\"attempt\":\"at-2\",\"assignment\":\"as-2\","
                + "\"state\":\"SUPERSEDED\"}],\"failures\":[{\"item\":\"attempt at-9\",\"problem\":\"busy \\\"x\\\"\"}]}";

        assertThat(text.lines(json))
                .containsExactly(
                        "The lease of actor planner (token 12, held by proc_bbbbbbbb…) expired at 08:00:00."
                                + " Reported only: the next host takes it over.",
                        "Process worker 7101 (proc_aaaaaaaa…), pid 7101, is stale: its last heartbeat was at 07:59:50.",
                        "The expired claim on message msg-1 was swept back to new.",
                        "Recovered assignment as-3 as failed / worker_lost: attempt at-3a (token 41) of worker 7101"
                                + " (proc_aaaaaaaa…) expired while its process was silent; receipt 7 says the outcome is unknown.",
                        "Attempt at-2 of assignment as-2 had expired and was no longer current: marked superseded.",
                        "Could not handle attempt at-9: busy \"x\"");
    }

    @Test
    void anEmptyTickSaysSoAndAReportThatIsNotJsonIsShownAsItIs() {
        assertThat(text.lines("{\"expired_leases\":[],\"stale_processes\":[],\"swept_claims\":[],\"recovered\":[],"
                        + "\"retired\":[],\"failures\":[]}"))
                .singleElement()
                .asString()
                .startsWith("Nothing to do");
        assertThat(text.lines("expired lease: planner\nswept claims: none"))
                .containsExactly("expired lease: planner", "swept claims: none");
        assertThat(text.lines("{\"broken\": ")).containsExactly("{\"broken\": ");
        assertThat(text.lines(null)).isEmpty();
    }

    @Test
    void manyFindingsOfOneKindAreCountedRatherThanListed() {
        StringBuilder stale = new StringBuilder();
        for (int i = 0; i < 12; i++) {
            stale.append(i == 0 ? "" : ",")
                    .append("{\"process\":\"proc_")
                    .append(i)
                    .append("\",\"heartbeat_at\":0}");
        }
        List<String> lines = text.lines("{\"stale_processes\":[" + stale + "],\"recovered\":[]}");

        assertThat(lines).hasSize(TickReportText.MAX_PER_KIND);
        assertThat(lines.get(TickReportText.MAX_PER_KIND - 1)).isEqualTo("\u2026 and 8 more stale processes.");
    }

    @Test
    void aProcessSilentForLongerThanLongDeadIsCountedNotNamed() {
        long at = 1_800_000_000_000L;
        String json = "{\"at\":" + at
                + ",\"stale_processes\":[{\"process\":\"proc_aaaaaaaa-1111\",\"label\":\"worker 7101\","
                + "\"heartbeat_at\":" + (at - 10_000)
                + "},{\"process\":\"proc_old1\",\"label\":\"worker 1\",\"heartbeat_at\":"
                + (at - TickReportText.LONG_DEAD.toMillis() - 1) + "},{\"process\":\"proc_old2\",\"heartbeat_at\":0}],"
                + "\"recovered\":[]}";

        assertThat(text.lines(json))
                .containsExactly(
                        "Process worker 7101 (proc_aaaaaaaa…) is stale: its last heartbeat was at 07:59:50.",
                        "2 more processes have been silent for more than 5 minutes (never stopped: a crash or a kill); not listed"
                                + " again. The Processes page shows them; Stop process marks them stopped.");
    }
}
