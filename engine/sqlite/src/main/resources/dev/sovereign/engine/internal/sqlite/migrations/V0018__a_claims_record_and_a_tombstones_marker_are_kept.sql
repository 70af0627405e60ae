-- Sovereign schema, version 18: a message's claim record and a tombstone's marker are what their writes made them
-- (decision 0925's update). Applied migrations are never edited.
--
-- A finish (CLAIMED -> DONE or DEAD) could also rewrite claim_token, claim_actor and claim_process, and a finished
-- message never changes again: a DONE message could be left carrying another resource's token. Now a claim token
-- changes only by a claim, or to none when the message goes back to NEW, and a finished message keeps its claimant.
-- And a tombstone could be written with any marker, hiding a release from the console's incremental read: now it
-- carries the lease change counter's value, as the delete trigger writes it.

CREATE TRIGGER messages_claim_token_changes_only_by_a_claim BEFORE UPDATE ON messages
WHEN NEW.claim_token IS NOT OLD.claim_token AND NEW.state IS NOT 'CLAIMED'
    AND NOT (NEW.state IS 'NEW' AND NEW.claim_token IS NULL)
BEGIN SELECT RAISE(ABORT, 'fence: a message''s claim token changes only by a claim, or to none when the message goes back to NEW'); END;
CREATE TRIGGER messages_finished_keep_their_claim BEFORE UPDATE ON messages
WHEN NEW.state IN ('DONE', 'DEAD')
    AND (NEW.claim_actor IS NOT OLD.claim_actor OR NEW.claim_process IS NOT OLD.claim_process)
BEGIN SELECT RAISE(ABORT, 'fence: a finished message keeps the claim that finished it'); END;
CREATE TRIGGER lease_tombstones_inserted_with_the_current_marker BEFORE INSERT ON lease_tombstones
WHEN NEW.change_seq IS NOT (SELECT last_change FROM lease_change_counter WHERE id = 1)
BEGIN SELECT RAISE(ABORT, 'a tombstone carries the lease change counter''s value of the release that left it'); END;
CREATE TRIGGER lease_tombstones_updated_with_the_current_marker BEFORE UPDATE ON lease_tombstones
WHEN NEW.change_seq IS NOT (SELECT last_change FROM lease_change_counter WHERE id = 1)
BEGIN SELECT RAISE(ABORT, 'a tombstone carries the lease change counter''s value of the release that left it'); END;
