-- Sovereign schema, version 12: the three holes the standing attack suite's longer runs found in version 11 (issue 26,
-- docs/decisions/0013-the-standing-attack-suite.md). Applied migrations are never edited.
--
-- * A lease row's times and TTL were typed by nothing: a write presenting the lease's token could set expires_at to a
--   text (''), which compares above every number, reads as 0, and turned a stranger's acquire into an internal error.
-- * A grant written by hand for a free actor (with a token minted for it, as the guards of version 3 require) could
--   carry any TTL: the API's limit of 365 days held in the engine only (PostgreSQL's guard has it since its version 8).
-- * A process's stop time was typed by nothing ('abc' accepted on a live process), and could be cleared again.
--
-- The lease rule is the one every engine write already keeps and LeaseRules.requireSane reads back: token, TTL and
-- the three times are whole numbers, the TTL is at most 365 days, and a row never expires later than its renewal plus
-- its TTL (a detach freezes the session's renewal and expiry, which keep that bound too). It fires on the writes that
-- set one of those columns, so a release (which sets only its marker) is never refused because of a row written
-- before this version. SQLite has no clock every writer shares: how far ahead a renewal may be stamped stays unbounded
-- here, as a session's beat does (docs/security.md).
CREATE TRIGGER actor_leases_granted_with_whole_times_within_a_year BEFORE INSERT ON actor_leases
WHEN typeof(NEW.token) IS NOT 'integer' OR typeof(NEW.ttl_ms) IS NOT 'integer'
    OR typeof(NEW.acquired_at) IS NOT 'integer' OR typeof(NEW.renewed_at) IS NOT 'integer'
    OR typeof(NEW.expires_at) IS NOT 'integer'
    OR NEW.ttl_ms > 31536000000 OR NEW.expires_at > NEW.renewed_at + NEW.ttl_ms
BEGIN SELECT RAISE(ABORT, 'fence: a lease''s token, TTL and times are whole numbers, its TTL at most 365 days, and it expires no later than its renewal plus its TTL'); END;
CREATE TRIGGER actor_leases_written_with_whole_times_within_a_year
BEFORE UPDATE OF token, ttl_ms, acquired_at, renewed_at, expires_at ON actor_leases
WHEN typeof(NEW.token) IS NOT 'integer' OR typeof(NEW.ttl_ms) IS NOT 'integer'
    OR typeof(NEW.acquired_at) IS NOT 'integer' OR typeof(NEW.renewed_at) IS NOT 'integer'
    OR typeof(NEW.expires_at) IS NOT 'integer'
    OR NEW.ttl_ms > 31536000000 OR NEW.expires_at > NEW.renewed_at + NEW.ttl_ms
BEGIN SELECT RAISE(ABORT, 'fence: a lease''s token, TTL and times are whole numbers, its TTL at most 365 days, and it expires no later than its renewal plus its TTL'); END;

-- A process stops once, at a whole-number time, and stays stopped (PostgreSQL's processes_guard says the same).
CREATE TRIGGER processes_stopped_once_at_a_whole_time BEFORE UPDATE OF stopped_at ON processes
WHEN NEW.stopped_at IS NOT OLD.stopped_at
    AND (OLD.stopped_at IS NOT NULL OR typeof(NEW.stopped_at) IS NOT 'integer')
BEGIN SELECT RAISE(ABORT, 'fence: a process stops once, at a whole-number time, and stays stopped'); END;
