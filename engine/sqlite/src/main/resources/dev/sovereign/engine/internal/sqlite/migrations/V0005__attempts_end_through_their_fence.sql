-- Sovereign schema, version 5: an ACTIVE attempt ends or is renewed only the way the engine does it
-- (issue 19; docs/decisions/0113-an-active-attempt-ends-only-through-its-fence.md). Applied migrations
-- are never edited.
--
-- Until version 4 the guards kept an attempt's identity and kept an ended attempt final, but let any
-- writer end someone else's ACTIVE attempt by hand (UPDATE ... SET state = 'DONE'), or move its expiry
-- (into the past, so the supervisor recovers it early; into the far future, so it never does). The
-- engine changes an ACTIVE attempt in exactly these ways, and the two triggers below allow only them:
--   * DONE      — in the transaction of its assignment's fenced terminal write, AFTER that write: the
--                 assignment has ended with ended_by_attempt = this attempt, ended_via = 'attempt'
--                 (SqliteRuns.finish);
--   * RECOVERED — in the transaction of the supervisor's recovery, after the assignment ended FAILED
--                 with ended_by_attempt = this attempt, ended_via = 'recovery' (SqliteSupervisor.recover);
--   * SUPERSEDED — once it has expired at the write's own time (ended_at): by a new attempt taking its
--                 place (SqliteRuns.startAttempt) or by the supervisor when another attempt is current;
--   * LOST      — once it has expired, when its assignment no longer points at it (the supervisor);
--   * a renewal — the heartbeat: renewed_at and expires_at only forward, a moved expiry at most ttl_ms
--                 after the renewal, while the assignment still points at it and the actor lease still carries
--                 its bound token and process.
-- An ending never renews in the same write, and ttl_ms never changes. As in version 3, time is the
-- writer's: "expired" compares the attempt's expiry with the ended_at the write itself stamps.
-- INSERT OR REPLACE / REPLACE are already refused by attempts_never_replaced (BEFORE INSERT), and
-- UPDATE OR REPLACE cannot collide because keys never change (attempts_keep_their_identity).
CREATE TRIGGER attempts_end_only_through_their_fence BEFORE UPDATE ON execution_attempts
WHEN OLD.state = 'ACTIVE' AND NEW.state IS NOT 'ACTIVE'
    AND NOT (NEW.ended_at IS NOT NULL AND NEW.renewed_at IS OLD.renewed_at AND NEW.expires_at IS OLD.expires_at
        AND NEW.ttl_ms IS OLD.ttl_ms
        AND ((NEW.state = 'DONE' AND EXISTS (SELECT 1 FROM assignments a WHERE a.id = OLD.assignment_id
                  AND a.state IN ('COMPLETED', 'BLOCKED', 'FAILED') AND a.ended_by_attempt = OLD.id
                  AND a.ended_via = 'attempt'))
          OR (NEW.state = 'RECOVERED' AND OLD.expires_at <= NEW.ended_at
              AND EXISTS (SELECT 1 FROM assignments a WHERE a.id = OLD.assignment_id AND a.state = 'FAILED'
                  AND a.ended_by_attempt = OLD.id AND a.ended_via = 'recovery'))
          OR (NEW.state = 'SUPERSEDED' AND OLD.expires_at <= NEW.ended_at)
          OR (NEW.state = 'LOST' AND OLD.expires_at <= NEW.ended_at
              AND NOT EXISTS (SELECT 1 FROM assignments a WHERE a.id = OLD.assignment_id
                  AND a.current_attempt = OLD.id))))
BEGIN SELECT RAISE(ABORT, 'fence: an ACTIVE attempt ends DONE only after its assignment''s fenced terminal write, RECOVERED only with its assignment''s recovery, SUPERSEDED or LOST only once it has expired'); END;
CREATE TRIGGER attempts_renewed_only_under_their_lease BEFORE UPDATE ON execution_attempts
WHEN OLD.state = 'ACTIVE' AND NEW.state IS 'ACTIVE'
    AND (NEW.renewed_at IS NOT OLD.renewed_at OR NEW.expires_at IS NOT OLD.expires_at
         OR NEW.ttl_ms IS NOT OLD.ttl_ms OR NEW.ended_at IS NOT NULL)
    AND NOT (NEW.ttl_ms IS OLD.ttl_ms AND NEW.ended_at IS NULL
        AND NEW.expires_at >= OLD.expires_at AND NEW.renewed_at >= OLD.renewed_at
        AND (NEW.expires_at IS OLD.expires_at OR NEW.expires_at <= NEW.renewed_at + OLD.ttl_ms)
        AND EXISTS (SELECT 1 FROM assignments a WHERE a.id = OLD.assignment_id AND a.current_attempt = OLD.id)
        AND EXISTS (SELECT 1 FROM actor_leases l WHERE l.actor_id = OLD.actor_id AND l.token = OLD.lease_token
                    AND l.process_identity = OLD.process_identity))
BEGIN SELECT RAISE(ABORT, 'fence: an ACTIVE attempt is renewed only forward, by at most its ttl, while its assignment points at it and the actor lease still carries its bound token and process'); END;
