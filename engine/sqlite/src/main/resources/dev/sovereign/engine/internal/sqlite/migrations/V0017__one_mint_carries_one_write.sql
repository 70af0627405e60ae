-- Sovereign schema, version 17: one mint carries one write (decision 0925). Applied migrations are never edited.
--
-- Until version 16 a lease, a takeover, an attempt or a claim was refused unless its token was the counter's value,
-- and nothing more: a token already written by one grant could be written again by a hand-typed statement for a free
-- actor, a new attempt or a claim, as long as the counter had not moved since (SQLite cannot tell one transaction
-- from the next), and one token was issued twice (contract §2: a token is never issued twice). Now the counter also
-- holds the last token a write used (last_used): each of those writes needs a token above it, and marks its own as
-- used in the same statement. last_used only moves up, never above the counter, and only to what a write carried.
-- The counter of an existing ledger starts used: every token it issued was written by its grant.

ALTER TABLE token_counter ADD COLUMN last_used INTEGER NOT NULL DEFAULT 0;

-- Version 1's rule, now for the two columns: the counter never goes down, and an update changes one of them.
DROP TRIGGER token_counter_only_increases;
CREATE TRIGGER token_counter_only_increases BEFORE UPDATE ON token_counter
WHEN typeof(NEW.last_token) = 'integer' AND (NEW.id <> OLD.id OR NEW.last_token < OLD.last_token
    OR (NEW.last_token = OLD.last_token AND NEW.last_used IS OLD.last_used))
BEGIN SELECT RAISE(ABORT, 'the fencing-token counter only increases'); END;
CREATE TRIGGER token_counter_uses_a_token_once BEFORE UPDATE ON token_counter
WHEN NEW.last_used IS NOT OLD.last_used
    AND (typeof(NEW.last_used) IS NOT 'integer' OR NEW.last_used <= OLD.last_used OR NEW.last_used > NEW.last_token
         OR NEW.last_token IS NOT OLD.last_token)
BEGIN SELECT RAISE(ABORT, 'fence: a minted token carries one write: the counter''s last used token only moves up to the counter'); END;

-- (A counter that holds no whole number is named at open, version 9's check, not here.)
UPDATE token_counter SET last_used = last_token
    WHERE id = 1 AND typeof(last_token) = 'integer' AND last_token > 0
        AND NOT EXISTS (SELECT 1 FROM ledger_retirement);

-- ---- each write that carries a minted token uses it --------------------------------------------------------
CREATE TRIGGER actor_leases_granted_with_an_unused_token BEFORE INSERT ON actor_leases
WHEN NEW.token <= (SELECT last_used FROM token_counter WHERE id = 1)
BEGIN SELECT RAISE(ABORT, 'fence: a lease is granted with the token minted for it, and a minted token carries one write: this one was written already'); END;
CREATE TRIGGER actor_leases_grant_uses_its_token AFTER INSERT ON actor_leases
BEGIN UPDATE token_counter SET last_used = NEW.token WHERE id = 1; END;
CREATE TRIGGER actor_leases_taken_over_with_an_unused_token BEFORE UPDATE ON actor_leases
WHEN NEW.token IS NOT OLD.token AND NEW.token <= (SELECT last_used FROM token_counter WHERE id = 1)
BEGIN SELECT RAISE(ABORT, 'fence: a takeover needs the token minted for it, and a minted token carries one write: this one was written already'); END;
CREATE TRIGGER actor_leases_takeover_uses_its_token AFTER UPDATE ON actor_leases
WHEN NEW.token IS NOT OLD.token
BEGIN UPDATE token_counter SET last_used = NEW.token WHERE id = 1; END;
CREATE TRIGGER attempts_start_with_an_unused_token BEFORE INSERT ON execution_attempts
WHEN NEW.token <= (SELECT last_used FROM token_counter WHERE id = 1)
BEGIN SELECT RAISE(ABORT, 'fence: an attempt starts with a freshly minted token, and a minted token carries one write: this one was written already'); END;
CREATE TRIGGER attempts_start_uses_its_token AFTER INSERT ON execution_attempts
BEGIN UPDATE token_counter SET last_used = NEW.token WHERE id = 1; END;
CREATE TRIGGER messages_claimed_with_an_unused_token BEFORE UPDATE ON messages
WHEN NEW.state = 'CLAIMED' AND NEW.claim_token IS NOT OLD.claim_token
    AND NEW.claim_token <= (SELECT last_used FROM token_counter WHERE id = 1)
BEGIN SELECT RAISE(ABORT, 'fence: a claim is granted with a freshly minted token, and a minted token carries one write: this one was written already'); END;
CREATE TRIGGER messages_claim_uses_its_token AFTER UPDATE ON messages
WHEN NEW.state = 'CLAIMED' AND NEW.claim_token IS NOT OLD.claim_token
BEGIN UPDATE token_counter SET last_used = NEW.claim_token WHERE id = 1; END;
