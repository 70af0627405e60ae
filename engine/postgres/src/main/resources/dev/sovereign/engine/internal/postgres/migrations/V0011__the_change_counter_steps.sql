-- Sovereign PostgreSQL schema, version 11: the lease change counter moves by one step per lease write (issue 26,
-- docs/decisions/0013-the-standing-attack-suite.md), the twin of the SQLite schema's version 11. Until now it
-- only had to increase: a worker login could wind it to 2^63 - 1 and every later grant (which bumps it) failed
-- for good. The copy of a file (decision 0907) seeds a new ledger's counter with this guard off, inside its one
-- transaction. Applied migrations are never edited. (A worker login cannot DELETE a processes row at all: V0003.)
CREATE OR REPLACE FUNCTION lease_change_counter_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF EXISTS (SELECT 1 FROM lease_change_counter) THEN
            RAISE EXCEPTION 'fence: the lease change counter has one row; it cannot be inserted again or replaced' USING ERRCODE = 'SV001';
        END IF;
        NEW.last_xact := 0;
        RETURN NEW;
    END IF;
    IF NEW.last_change <= OLD.last_change OR NEW.id <> OLD.id THEN
        RAISE EXCEPTION 'the lease change counter only increases' USING ERRCODE = 'SV001';
    END IF;
    IF NEW.last_change <> OLD.last_change + 1 THEN
        RAISE EXCEPTION 'fence: the lease change counter moves by one step per lease write' USING ERRCODE = 'SV001';
    END IF;
    NEW.last_xact := txid_current();
    RETURN NEW;
END
$$;
DO $$
BEGIN
    EXECUTE format('ALTER FUNCTION lease_change_counter_guard() SET search_path = pg_catalog, %I, pg_temp', current_schema());
END
$$;
