-- Sovereign schema, version 13: an attempt's token, TTL and times are whole numbers (issue 26's rule for leases,
-- version 12, now for attempts). Applied migrations are never edited.
--
-- The standing attack suite's longest run (375 tries a property) found that a write to the live attempt's row could
-- set its renewed_at to a text ('abc'): attempts_renewed_only_under_their_lease compares NEW.renewed_at >=
-- OLD.renewed_at, and in SQLite a text compares above every number, so the guard let it through; the holder's next
-- beat then failed on the row. PostgreSQL's columns are bigint and refuse it by type.
--
-- The rule is the one every engine write already keeps: token, lease token, TTL, start, renewal and expiry are whole
-- numbers, the end a whole number once there is one, and the TTL at most 365 days (the run TTL's limit,
-- rules.Arguments). It fires on the writes that set one of those columns.
CREATE TRIGGER attempts_started_with_whole_times_within_a_year BEFORE INSERT ON execution_attempts
WHEN typeof(NEW.token) IS NOT 'integer' OR typeof(NEW.lease_token) IS NOT 'integer'
    OR typeof(NEW.ttl_ms) IS NOT 'integer' OR typeof(NEW.started_at) IS NOT 'integer'
    OR typeof(NEW.renewed_at) IS NOT 'integer' OR typeof(NEW.expires_at) IS NOT 'integer'
    OR (NEW.ended_at IS NOT NULL AND typeof(NEW.ended_at) IS NOT 'integer')
    OR NEW.ttl_ms > 31536000000
BEGIN SELECT RAISE(ABORT, 'fence: an attempt''s token, TTL and times are whole numbers and its TTL at most 365 days'); END;
CREATE TRIGGER attempts_written_with_whole_times_within_a_year
BEFORE UPDATE OF token, lease_token, ttl_ms, started_at, renewed_at, expires_at, ended_at ON execution_attempts
WHEN typeof(NEW.token) IS NOT 'integer' OR typeof(NEW.lease_token) IS NOT 'integer'
    OR typeof(NEW.ttl_ms) IS NOT 'integer' OR typeof(NEW.started_at) IS NOT 'integer'
    OR typeof(NEW.renewed_at) IS NOT 'integer' OR typeof(NEW.expires_at) IS NOT 'integer'
    OR (NEW.ended_at IS NOT NULL AND typeof(NEW.ended_at) IS NOT 'integer')
    OR NEW.ttl_ms > 31536000000
BEGIN SELECT RAISE(ABORT, 'fence: an attempt''s token, TTL and times are whole numbers and its TTL at most 365 days'); END;
