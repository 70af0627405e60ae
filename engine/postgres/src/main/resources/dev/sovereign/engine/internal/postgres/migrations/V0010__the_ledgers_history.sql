-- Sovereign PostgreSQL schema, version 10: the token counter moves only by minting, and the ledger's history only
-- moves forward (issue 26 items 7 and "the file's history", issue 32 item 2; docs/decisions/0603, 0604, 0605), the
-- twin of the SQLite schema's version 9. Applied migrations are never edited.
--
-- A token is epoch * 2^40 + n, 1 <= n < 2^40, epoch 0 .. 2^23 - 1. Every ledger before this version is in epoch 0.
-- Until this version the worker role held UPDATE on token_counter and its guard wanted only "greater": a worker
-- login could set it to 2^63 - 1 and every later grant failed "bigint out of range", for good. Now the guard
-- (replaced below) allows exactly three changes, and the worker keeps its UPDATE for the first (a mint is the
-- hot path: no function call, no extra statement, the check is arithmetic on OLD and NEW):
--   * a mint: one step, within the epoch (never onto the next epoch's start), while the ledger is not halted;
--   * a new epoch's start, when ledger_history holds the row that states this very jump (from the counter's
--     current value); only the ledger's owner may write such a row (sovereign fence bump, after a pg_restore);
--     it ends a halt;
--   * a halt: the counter unchanged, halted set, when ledger_history holds a 'backwards' row stating the counter
--     (an engine had seen a token above it). A halted counter steps no more until a new epoch starts.
-- sovereign copy writes the counter of a new ledger with this guard switched off inside its one transaction, as it
-- writes every other table (decision 0907); nothing else can.

ALTER TABLE token_counter ADD COLUMN halted boolean NOT NULL DEFAULT false;

-- ---- the ledger's history: append-only ----------------------------------------------------------------------
-- kind: backup (in a SQLite backup's copy; never written here), restore, bump (the owner's), backwards (any engine).
CREATE TABLE ledger_history (
    seq              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at               BIGINT NOT NULL,
    kind             TEXT   NOT NULL CHECK (kind IN ('backup', 'restore', 'bump', 'backwards')),
    epoch            BIGINT NOT NULL CHECK (epoch BETWEEN 0 AND 8388607),
    from_token       BIGINT NOT NULL CHECK (from_token >= 0),
    to_token         BIGINT NOT NULL CHECK (to_token >= from_token),
    seen_token       BIGINT,
    process_identity TEXT,
    backup_id        TEXT,
    detail           TEXT   NOT NULL
);

-- ledger_history_only_appended (its seq is the one its own insert drew, as for the journal), _states_the_counter,
-- and who may start an epoch: the table's owner. A backwards row halts the counter in the same statement.
CREATE FUNCTION ledger_history_guard() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    drawn bigint;
    tokens token_counter%ROWTYPE;
BEGIN
    BEGIN
        drawn := currval(pg_get_serial_sequence(TG_TABLE_NAME, 'seq'));
    EXCEPTION WHEN object_not_in_prerequisite_state THEN
        drawn := NULL;
    END;
    IF NEW.seq IS DISTINCT FROM drawn OR EXISTS (SELECT 1 FROM ledger_history WHERE seq = NEW.seq) THEN
        RAISE EXCEPTION 'fence: the ledger''s history is append-only' USING ERRCODE = 'SV001';
    END IF;
    IF NEW.kind IN ('backup', 'restore', 'bump')
            AND NOT pg_has_role(current_user, (SELECT relowner FROM pg_class WHERE oid = TG_RELID), 'USAGE') THEN
        RAISE EXCEPTION 'fence: only the ledger''s owner starts a new epoch of its token counter' USING ERRCODE = 'SV001';
    END IF;
    SELECT * INTO tokens FROM token_counter WHERE id = 1 FOR UPDATE;
    IF NEW.from_token IS DISTINCT FROM tokens.last_token
            OR (NEW.kind IN ('backup', 'backwards')
                AND (NEW.to_token IS DISTINCT FROM NEW.from_token OR NEW.epoch IS DISTINCT FROM NEW.from_token / 1099511627776))
            OR (NEW.kind IN ('restore', 'bump')
                AND (NEW.to_token IS DISTINCT FROM NEW.epoch * 1099511627776
                     OR NEW.epoch <= NEW.from_token / 1099511627776
                     OR NEW.epoch <= COALESCE((SELECT max(epoch) FROM ledger_history), 0)
                     OR NEW.epoch <= COALESCE((SELECT max(seen_token) FROM ledger_history WHERE kind = 'backwards'), 0) / 1099511627776))
            OR (NEW.kind = 'backwards' AND (NEW.seen_token IS NULL OR NEW.seen_token <= NEW.from_token)) THEN
        RAISE EXCEPTION 'fence: a history row states the counter as it is, and a new epoch starts above every epoch and every token seen before it' USING ERRCODE = 'SV001';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER ledger_history_only_appended BEFORE INSERT ON ledger_history FOR EACH ROW EXECUTE FUNCTION ledger_history_guard();
CREATE TRIGGER ledger_history_never_changed BEFORE DELETE OR UPDATE ON ledger_history FOR EACH ROW EXECUTE FUNCTION sovereign_refuse('fence: the ledger''s history is append-only');
CREATE TRIGGER ledger_history_never_truncated BEFORE TRUNCATE ON ledger_history FOR EACH STATEMENT EXECUTE FUNCTION sovereign_refuse('fence: the ledger''s history is append-only');

-- A backwards row halts the counter (after the row is in: the counter's guard looks for it).
CREATE FUNCTION ledger_history_halts_the_counter() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.kind = 'backwards' THEN
        UPDATE token_counter SET halted = true WHERE id = 1 AND NOT halted;
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER ledger_history_halts_the_counter AFTER INSERT ON ledger_history FOR EACH ROW EXECUTE FUNCTION ledger_history_halts_the_counter();

-- ---- the counter: version 1's guard with the three changes above and nothing else ---------------------------
CREATE OR REPLACE FUNCTION token_counter_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF EXISTS (SELECT 1 FROM token_counter) THEN
            RAISE EXCEPTION 'fence: the fencing-token counter has one row; it cannot be inserted again or replaced' USING ERRCODE = 'SV001';
        END IF;
        NEW.last_xact := 0;
        NEW.halted := false;
        RETURN NEW;
    END IF;
    IF NEW.id <> OLD.id THEN
        RAISE EXCEPTION 'the fencing-token counter only increases' USING ERRCODE = 'SV001';
    END IF;
    IF NEW.last_token = OLD.last_token + 1 AND NEW.last_token % 1099511627776 <> 0 AND NOT OLD.halted AND NOT NEW.halted THEN
        NULL; -- a mint
    ELSIF NEW.last_token > OLD.last_token
            AND EXISTS (SELECT 1 FROM ledger_history h WHERE h.kind IN ('restore', 'bump')
                        AND h.from_token = OLD.last_token AND h.to_token = NEW.last_token) THEN
        NEW.halted := false; -- a new epoch's start, as the history states it: it ends a halt
    ELSIF NEW.last_token = OLD.last_token AND NEW.halted AND NOT OLD.halted
            AND EXISTS (SELECT 1 FROM ledger_history h WHERE h.kind = 'backwards' AND h.from_token = OLD.last_token) THEN
        NULL; -- the halt of a ledger gone backwards
    ELSIF OLD.halted AND NEW.last_token = OLD.last_token + 1 THEN
        RAISE EXCEPTION 'fence: the ledger went backwards (an engine had seen a token above its counter); it issues no token until sovereign fence bump starts a new epoch' USING ERRCODE = 'SV001';
    ELSIF NEW.last_token = OLD.last_token + 1 THEN
        RAISE EXCEPTION 'fence: the fencing-token counter has issued every token of its epoch; run sovereign fence bump to start the next' USING ERRCODE = 'SV001';
    ELSIF NEW.last_token <= OLD.last_token THEN
        RAISE EXCEPTION 'the fencing-token counter only increases' USING ERRCODE = 'SV001';
    ELSE
        RAISE EXCEPTION 'fence: the fencing-token counter moves only by one step per mint, or to the start of an epoch the ledger''s history records' USING ERRCODE = 'SV001';
    END IF;
    NEW.last_xact := txid_current();
    RETURN NEW;
END
$$;

-- ---- a claim granted before the ledger's current epoch is lost (see the SQLite schema's version 8) -----------
CREATE FUNCTION messages_guard_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.state = 'CLAIMED' AND (NEW.state IN ('DONE', 'DEAD')
            OR (NEW.state = 'NEW' AND NEW.retry_count IS DISTINCT FROM OLD.retry_count))
            AND EXISTS (SELECT 1 FROM actor_leases l WHERE l.actor_id = OLD.claim_actor
                        AND l.token / 1099511627776 > OLD.claim_token / 1099511627776) THEN
        RAISE EXCEPTION 'fence: a claim granted before the ledger''s current epoch (a restore or a fence bump) is lost: it cannot finish the message' USING ERRCODE = 'SV001';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER messages_guard_epoch BEFORE UPDATE ON messages FOR EACH ROW EXECUTE FUNCTION messages_guard_epoch();

-- ---- the journal: the history's events ----------------------------------------------------------------------
ALTER TABLE fence_events DROP CONSTRAINT fence_events_kind_check;
ALTER TABLE fence_events ADD CONSTRAINT fence_events_kind_check CHECK (kind IN (
    'LEASE_ACQUIRED', 'LEASE_RENEWED', 'LEASE_RELEASED', 'LEASE_TAKEN_OVER',
    'ATTEMPT_STARTED', 'ATTEMPT_DONE', 'ATTEMPT_SUPERSEDED', 'ATTEMPT_RECOVERED',
    'ATTEMPT_STOLEN', 'ASSIGNMENT_CREATED', 'ASSIGNMENT_RETRIED', 'ASSIGNMENT_ACKNOWLEDGED',
    'CLAIM_GRANTED', 'CLAIM_SWEPT', 'MESSAGE_SENT', 'MESSAGE_DONE', 'MESSAGE_RETRIED',
    'MESSAGE_DEAD', 'PROCESS_STARTED', 'PROCESS_STOPPED', 'REJECTED',
    'LEDGER_RESTORED', 'FENCE_BUMPED', 'LEDGER_WENT_BACKWARDS'));
ALTER TABLE fence_events DROP CONSTRAINT fence_events_resource_type_check;
ALTER TABLE fence_events ADD CONSTRAINT fence_events_resource_type_check
    CHECK (resource_type IN ('actor', 'attempt', 'assignment', 'message', 'process', 'ledger'));

-- ---- settings and grants, as every version gives them --------------------------------------------------------
-- The functions see only the built-ins and the ledger; the new triggers fire in every session; the worker may
-- read the history and append its 'backwards' reports (the guard keeps restore and bump rows to the owner).
DO $$
DECLARE
    suffix text := current_database() || CASE WHEN current_schema() = 'public' THEN '' ELSE '_' || current_schema() END;
    worker text := 'sovereign_' || suffix || '_worker';
BEGIN
    EXECUTE format('ALTER FUNCTION ledger_history_guard() SET search_path = pg_catalog, %I, pg_temp', current_schema());
    EXECUTE format('ALTER FUNCTION ledger_history_halts_the_counter() SET search_path = pg_catalog, %I, pg_temp', current_schema());
    EXECUTE format('ALTER FUNCTION token_counter_guard() SET search_path = pg_catalog, %I, pg_temp', current_schema());
    EXECUTE format('ALTER FUNCTION messages_guard_epoch() SET search_path = pg_catalog, %I, pg_temp', current_schema());
    EXECUTE format('REVOKE ALL ON ledger_history FROM PUBLIC');
    EXECUTE format('GRANT SELECT, INSERT ON ledger_history TO %I', worker);
    EXECUTE format('GRANT USAGE ON ALL SEQUENCES IN SCHEMA %I TO %I', current_schema(), worker);
END
$$;
ALTER TABLE ledger_history ENABLE ALWAYS TRIGGER ledger_history_only_appended;
ALTER TABLE ledger_history ENABLE ALWAYS TRIGGER ledger_history_never_changed;
ALTER TABLE ledger_history ENABLE ALWAYS TRIGGER ledger_history_never_truncated;
ALTER TABLE ledger_history ENABLE ALWAYS TRIGGER ledger_history_halts_the_counter;
ALTER TABLE messages ENABLE ALWAYS TRIGGER messages_guard_epoch;
