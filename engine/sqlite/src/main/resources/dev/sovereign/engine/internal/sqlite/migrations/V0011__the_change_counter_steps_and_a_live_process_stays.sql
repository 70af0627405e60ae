-- Sovereign schema, version 11: two holes the standing attack suite found after versions 8-10 (issue 26,
-- docs/decisions/0013-the-standing-attack-suite.md). Applied migrations are never edited.
--
-- * The lease change counter only had to increase: a writer of the file could wind it to 2^63 - 2, and every
--   later grant (which bumps it) failed for good. Like the token counter it now moves by exactly one step per
--   lease write, and holds a whole number.
-- * A process's row could be deleted while the process runs (with no lease naming it, version 8's guard let it):
--   its next grant then failed on its foreign key. A process row is deleted only once it has stopped.
-- (A value of another type or a step back is refused by the guards of versions 1 and 9, with their own words.)
CREATE TRIGGER lease_change_counter_moves_by_one_step BEFORE UPDATE ON lease_change_counter
WHEN typeof(NEW.last_change) = 'integer' AND typeof(OLD.last_change) = 'integer'
    AND NEW.last_change > OLD.last_change + 1
BEGIN SELECT RAISE(ABORT, 'fence: the lease change counter moves by one step per lease write'); END;
CREATE TRIGGER processes_running_never_deleted BEFORE DELETE ON processes
WHEN OLD.stopped_at IS NULL
BEGIN SELECT RAISE(ABORT, 'fence: the row of a process that has not stopped is never deleted'); END;
-- * A process row inserted by hand could carry a time that is not a whole number (0.5, text): the session's times
--   are integers from the first write, as version 8 keeps them on every later one.
CREATE TRIGGER processes_registered_with_whole_times BEFORE INSERT ON processes
WHEN typeof(NEW.started_at) IS NOT 'integer' OR typeof(NEW.heartbeat_at) IS NOT 'integer'
    OR (NEW.stopped_at IS NOT NULL AND typeof(NEW.stopped_at) IS NOT 'integer')
BEGIN SELECT RAISE(ABORT, 'fence: a process is registered with whole-number times'); END;
