package dev.sovereign.engine.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sovereign.engine.Refusal;
import dev.sovereign.engine.StorageException;
import dev.sovereign.engine.actor.Actor;
import dev.sovereign.engine.journal.FenceEvent;
import dev.sovereign.engine.lease.Lease;
import java.util.Locale;

/**
 * The JSON objects the CLI prints with {@code --json}, one per result, one per line. Field names are
 * snake_case and stable (SPEC section 11): they are built here by hand, never derived from Java
 * names, so renaming a record component cannot change the contract. Times are epoch milliseconds;
 * absent values are {@code null}, never missing, so every object of a kind has the same keys.
 */
final class JsonShapes {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private JsonShapes() {
    }

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

    /** The columns of {@code fence_events} (SPEC section 9), under their column names. */
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

    /** {@code refused: true, category, message, presented_token, current_token, resource_type, resource_id, actor}. */
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
