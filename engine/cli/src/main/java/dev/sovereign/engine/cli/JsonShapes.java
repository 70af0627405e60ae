package dev.sovereign.engine.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sovereign.engine.actor.Actor;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.journal.FenceEvent;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.mailbox.Claim;
import dev.sovereign.engine.mailbox.Message;
import dev.sovereign.engine.mailbox.MessageState;
import dev.sovereign.engine.run.Attempt;
import dev.sovereign.engine.run.Receipt;
import dev.sovereign.engine.run.RunResult;
import dev.sovereign.engine.supervisor.TickReport;
import java.util.Locale;

/**
 * The JSON objects the CLI prints with {@code --json}, one per result, one per line. Field names are
 * snake_case and stable (contract §11): they are built here by hand, never derived from Java
 * names, so renaming a record component cannot change the contract. Times are epoch milliseconds;
 * absent values are {@code null}, never missing, so every object of a kind has the same keys.
 */
final class JsonShapes {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private JsonShapes() {}

    static ObjectNode object() {
        return MAPPER.createObjectNode();
    }

    static String line(ObjectNode node) {
        try {
            return MAPPER.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot render JSON", e);
        }
    }

    /** {@code actor, process, token, ttl_ms, acquired_at, renewed_at, expires_at, expired}. */
    static ObjectNode lease(Lease l, long now) {
        ObjectNode o = object();
        o.put("actor", l.actor());
        o.put("process", l.process());
        o.put("token", l.token());
        o.put("ttl_ms", l.ttlMs());
        o.put("acquired_at", l.acquiredAt());
        o.put("renewed_at", l.renewedAt());
        o.put("expires_at", l.expiresAt());
        o.put("expired", l.isExpiredAt(now));
        return o;
    }

    /** {@code actor, workspace_policy, created_at}. */
    static ObjectNode actor(Actor a) {
        ObjectNode o = object();
        o.put("actor", a.id());
        o.put("workspace_policy", a.workspacePolicy());
        o.put("created_at", a.createdAt());
        return o;
    }

    /** The columns of {@code fence_events} (contract §9), under their column names. */
    static ObjectNode event(FenceEvent e) {
        ObjectNode o = object();
        o.put("seq", e.seq());
        o.put("at", e.at());
        o.put("kind", e.kind().name());
        o.put("resource_type", e.resourceType());
        o.put("resource_id", e.resourceId());
        o.put("actor_id", e.actorId());
        o.put("process_identity", e.processIdentity());
        o.put("token", e.token());
        o.put("presented_token", e.presentedToken());
        o.put("current_token", e.currentToken());
        o.put("category", e.category());
        o.put("detail", e.detail());
        return o;
    }

    /** {@code message, actor, process, token, expires_at}: a claim (contract §11). */
    static ObjectNode claim(Claim c) {
        ObjectNode o = object();
        o.put("message", c.message());
        o.put("actor", c.actor());
        o.put("process", c.process());
        o.put("token", c.token());
        o.put("expires_at", c.expiresAt());
        return o;
    }

    /**
     * {@code message, sender, recipient, subject, body, state, claim_actor, claim_process, claim_token,
     * claim_expires_at, claim_expired, retry_count, max_retries, created_at, updated_at}. The claim fields
     * are the current claim while CLAIMED, the finishing claim for DONE and DEAD, null while NEW.
     */
    static ObjectNode message(Message m, long now) {
        Claim c = m.claim();
        ObjectNode o = object();
        o.put("message", m.id());
        o.put("sender", m.sender());
        o.put("recipient", m.recipient());
        o.put("subject", m.subject());
        o.put("body", m.body());
        o.put("state", m.state().name());
        o.put("claim_actor", c == null ? null : c.actor());
        o.put("claim_process", c == null ? null : c.process());
        o.put("claim_token", c == null ? null : c.token());
        o.put("claim_expires_at", c == null ? null : c.expiresAt());
        o.put("claim_expired", c == null || m.state() != MessageState.CLAIMED ? null : c.isExpiredAt(now));
        o.put("retry_count", m.retryCount());
        o.put("max_retries", m.maxRetries());
        o.put("created_at", m.createdAt());
        o.put("updated_at", m.updatedAt());
        return o;
    }

    /**
     * {@code assignment, actor, state, provider, workspace_policy, current_attempt, current_attempt_token,
     * attempts, retry_of, retried_by, acknowledged_at, worker_lost, receipt (object or null), output_dir (the
     * output folder of the attempt the receipt names, or null without a receipt), created_at, updated_at}.
     */
    static ObjectNode assignment(AssignmentFacts f) {
        ObjectNode o = object();
        o.put("assignment", f.assignment().id());
        o.put("actor", f.assignment().actorId());
        o.put("state", f.assignment().state().name());
        o.put("provider", f.assignment().providerSpec());
        o.put("workspace_policy", f.assignment().workspacePolicy());
        o.put("current_attempt", f.assignment().currentAttempt());
        o.put("current_attempt_token", f.currentAttemptToken());
        o.put("attempts", f.attempts());
        o.put("retry_of", f.assignment().retryOf());
        o.put("retried_by", f.retriedBy());
        o.put("acknowledged_at", f.assignment().acknowledgedAt());
        o.put("worker_lost", f.isWorkerLost());
        o.set("receipt", f.receipt() == null ? null : receipt(f.receipt()));
        o.put("output_dir", f.outputDir() == null ? null : f.outputDir().toString());
        o.put("created_at", f.assignment().createdAt());
        o.put("updated_at", f.assignment().updatedAt());
        return o;
    }

    /** The assignment of a committed run, plus {@code attempt} (object), {@code workspace}, {@code receipt_file}, {@code warnings}. */
    static ObjectNode run(AssignmentFacts f, RunResult r) {
        ObjectNode o = assignment(f);
        o.set("attempt", attempt(r.attempt()));
        o.put("workspace", r.workspace() == null ? null : r.workspace().toString());
        o.put("receipt_file", r.receiptFile() == null ? null : r.receiptFile().toString());
        ArrayNode w = o.putArray("warnings");
        r.warnings().forEach(w::add);
        return o;
    }

    /** {@code receipt, attempt, attempt_token, process, status, failure_category, outcome_known, summary, created_at}. */
    static ObjectNode receipt(Receipt r) {
        ObjectNode o = object();
        o.put("receipt", r.id());
        o.put("attempt", r.attemptId());
        o.put("attempt_token", r.attemptToken());
        o.put("process", r.processIdentity());
        o.put("status", r.status().code());
        o.put("failure_category", r.failureCategory());
        o.put("outcome_known", r.outcomeKnown());
        o.put("summary", r.summary());
        o.put("created_at", r.createdAt());
        return o;
    }

    /** {@code attempt, assignment, actor, process, token, lease_token, state, ttl_ms, started_at, renewed_at, expires_at, ended_at}. */
    static ObjectNode attempt(Attempt a) {
        ObjectNode o = object();
        o.put("attempt", a.id());
        o.put("assignment", a.assignmentId());
        o.put("actor", a.actorId());
        o.put("process", a.processIdentity());
        o.put("token", a.token());
        o.put("lease_token", a.leaseToken());
        o.put("state", a.state().name());
        o.put("ttl_ms", a.ttlMs());
        o.put("started_at", a.startedAt());
        o.put("renewed_at", a.renewedAt());
        o.put("expires_at", a.expiresAt());
        o.put("ended_at", a.endedAt());
        return o;
    }

    /**
     * One supervisor tick, in the shape the supervisor stores in {@code supervisor_ticks.report}:
     * {@code at, process, expired_leases [{actor, process, token, expires_at}], stale_processes [{process,
     * pid, label, heartbeat_at}], swept_claims [message ids], recovered [{assignment, attempt, attempt_token,
     * lost_process, receipt, fence_was_stolen}], retired [{attempt, assignment, state}], failures [{item, problem}]}.
     */
    static ObjectNode tick(TickReport r) {
        ObjectNode o = object();
        o.put("at", r.at());
        o.put("process", r.processIdentity());
        ArrayNode leases = o.putArray("expired_leases");
        r.expiredLeases()
                .forEach(l -> leases.addObject()
                        .put("actor", l.actor())
                        .put("process", l.process())
                        .put("token", l.token())
                        .put("expires_at", l.expiresAt()));
        ArrayNode stale = o.putArray("stale_processes");
        r.staleProcesses()
                .forEach(p -> stale.addObject()
                        .put("process", p.identity())
                        .put("pid", p.pid())
                        .put("label", p.label())
                        .put("heartbeat_at", p.heartbeatAt()));
        ArrayNode swept = o.putArray("swept_claims");
        r.sweptClaims().forEach(swept::add);
        ArrayNode recovered = o.putArray("recovered");
        r.recovered()
                .forEach(x -> recovered
                        .addObject()
                        .put("assignment", x.assignmentId())
                        .put("attempt", x.attemptId())
                        .put("attempt_token", x.attemptToken())
                        .put("lost_process", x.lostProcess())
                        .put("receipt", x.receiptId())
                        .put("fence_was_stolen", x.fenceWasStolen()));
        ArrayNode retired = o.putArray("retired");
        r.retired()
                .forEach(x -> retired.addObject()
                        .put("attempt", x.attemptId())
                        .put("assignment", x.assignmentId())
                        .put("state", x.state()));
        ArrayNode failures = o.putArray("failures");
        r.failures().forEach(f -> failures.addObject().put("item", f.item()).put("problem", f.problem()));
        return o;
    }

    /**
     * {@code refused: true, category, message, presented_token, current_token, resource_type, resource_id, actor,
     * warnings} ({@code warnings}: problems after the refusal was decided, e.g. its journal row is missing).
     */
    static ObjectNode refusal(Refusal r) {
        ObjectNode o = object();
        o.put("refused", true);
        o.put("category", r.category().code());
        o.put("message", r.getMessage());
        o.put("presented_token", r.presentedToken());
        o.put("current_token", r.currentToken());
        o.put("resource_type", r.resourceType());
        o.put("resource_id", r.resourceId());
        o.put("actor", r.actorId());
        ArrayNode w = o.putArray("warnings");
        r.warnings().forEach(w::add);
        return o;
    }

    /** {@code error: "storage", problem, file, message}. */
    static ObjectNode storageError(StorageException e, String message) {
        ObjectNode o = error("storage", message);
        o.put("problem", e.problem().name().toLowerCase(Locale.ROOT));
        o.put("file", e.file() == null ? null : e.file().toString());
        return o;
    }

    /** {@code error: <kind>, message}: kinds are {@code bad_usage}, {@code unavailable}, {@code interrupted}, {@code internal}. */
    static ObjectNode error(String kind, String message) {
        ObjectNode o = object();
        o.put("error", kind);
        o.put("message", message);
        return o;
    }
}
