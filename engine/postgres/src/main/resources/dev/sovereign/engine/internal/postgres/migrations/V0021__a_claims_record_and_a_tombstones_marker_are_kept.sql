-- Sovereign PostgreSQL schema, version 21: a message's claim record and a tombstone's marker are what their writes
-- made them (decision 0925's update). Applied migrations are never edited.
--
-- Two gaps a read-only attack on versions 18 to 20 found, both older than them:
--   * A finish (CLAIMED -> DONE or DEAD) was checked for the claim token it presents (finished_with) but could also
--     rewrite claim_token, claim_actor and claim_process, and a finished message never changes again: a worker login
--     could leave a DONE message carrying another resource's token (one token on two resources, as stored). Now a
--     claim token changes only by a claim, or to none when the message goes back to NEW (a sweep, a requeue), and a
--     finished message keeps the claimant that finished it.
--   * lease_tombstones had no guard, and the worker role may write it (the delete trigger writes as the caller): a
--     released lease's tombstone could be stamped below the console's cursor and the release never shown. Now a
--     tombstone carries the id of the transaction that writes it, as a lease row does (version 18).

CREATE FUNCTION messages_guard_claim_record() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.claim_token IS DISTINCT FROM OLD.claim_token AND NEW.state IS DISTINCT FROM 'CLAIMED'
            AND NOT (NEW.state = 'NEW' AND NEW.claim_token IS NULL) THEN
        RAISE EXCEPTION 'fence: a message''s claim token changes only by a claim, or to none when the message goes back to NEW' USING ERRCODE = 'SV001';
    END IF;
    IF NEW.state IN ('DONE', 'DEAD') AND (NEW.claim_actor IS DISTINCT FROM OLD.claim_actor
            OR NEW.claim_process IS DISTINCT FROM OLD.claim_process) THEN
        RAISE EXCEPTION 'fence: a finished message keeps the claim that finished it' USING ERRCODE = 'SV001';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER messages_guard_claim_record BEFORE UPDATE ON messages FOR EACH ROW EXECUTE FUNCTION messages_guard_claim_record();

CREATE FUNCTION lease_tombstones_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.change_seq IS DISTINCT FROM txid_current() THEN
        RAISE EXCEPTION 'a tombstone carries the id of the transaction that released the lease (txid_current()) as its change marker' USING ERRCODE = 'SV001';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER lease_tombstones_guard BEFORE INSERT OR UPDATE ON lease_tombstones FOR EACH ROW EXECUTE FUNCTION lease_tombstones_guard();

DO $$
BEGIN
    EXECUTE format('ALTER FUNCTION messages_guard_claim_record() SET search_path = pg_catalog, %I, pg_temp', current_schema());
    EXECUTE format('ALTER FUNCTION lease_tombstones_guard() SET search_path = pg_catalog, %I, pg_temp', current_schema());
END
$$;
ALTER TABLE messages ENABLE ALWAYS TRIGGER messages_guard_claim_record;
ALTER TABLE lease_tombstones ENABLE ALWAYS TRIGGER lease_tombstones_guard;
