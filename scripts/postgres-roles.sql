-- Least-privilege roles for the PostgreSQL store (issue 14 item 5).
-- CH33 §10: "store analytics data with least privilege; restrict internal access".
--
-- Four LOGIN roles; this file sets no password (set one with psql's \password or
-- ALTER ROLE … PASSWORD, or authenticate them in pg_hba.conf):
--   handz_admin    owns the database and the tables: migrations, VACUUM FULL, maintenance.
--   handz_ingest   what `handz-analytics serve` connects as: exactly the server's queries, no DDL.
--   handz_analyst  read-only: events without user_id, rejected_events, batches, install_first_seen
--                  (install ids and times, which the cohort KPIs read), nothing else.
--   handz_follower what an analysis node (`serve --follow`, issue 36) connects as: reads events
--                  whole (its copy answers per-user questions), the deletion ledger and the audit
--                  salt (to carry deletions out on its copy), install_first_seen and the schema
--                  version; writes nothing.
--
-- Setup, in order:
--   1. As a superuser: CREATE ROLE handz_admin LOGIN; CREATE DATABASE handz OWNER handz_admin;
--   2. Migrate as handz_admin: run any store command once, e.g.
--        handz-analytics deletions list --store postgres://handz_admin@HOST/handz
--   3. As a superuser, run this file (idempotent; re-run it after every upgrade that migrates):
--        scripts/postgres-roles.sh postgres://postgres@HOST/handz
--      = psql -v ON_ERROR_STOP=1 -d DATABASE -f scripts/postgres-roles.sql
--   4. handz-analytics serve --store postgres://handz_ingest@HOST/handz …
--   5. Analysts connect as handz_analyst and read events_analyst; analysis nodes run
--        handz-analytics serve --follow postgres://handz_follower@HOST/handz …
--
-- Who may run it: creating a missing role needs a superuser or a CREATEROLE role; the rest needs
-- the tables' owner (handz_admin) or a superuser, and giving handz_admin tables another role
-- created (the schema migrated as postgres) needs a superuser. Once the roles exist and
-- handz_admin owns everything, handz_admin can re-run it alone.
--
-- Every grant below is first revoked, so a re-run resets the four roles and PUBLIC to exactly
-- this file. CONNECT and TEMPORARY on the database are revoked from PUBLIC: any other role
-- (monitoring, backups) needs its own GRANT CONNECT.
--
-- Column privileges: handz_analyst may read every events column except user_id, so
-- `SELECT * FROM events` fails for it (permission denied for table events). Analysts name the
-- columns, or read the view events_analyst (owned by handz_admin: every column but user_id).
--
-- No psql meta-commands (backslash commands) in this file: the tests send it whole with psql -c.

BEGIN;

-- Refuse an unmigrated (or pre-migration-5) schema: grants on missing tables or columns would fail halfway.
DO $$
BEGIN
    IF to_regclass('schema_migrations') IS NULL OR to_regclass('deletion_requests') IS NULL OR to_regclass('install_first_seen') IS NULL
       OR NOT EXISTS (SELECT FROM information_schema.columns WHERE table_schema = 'public' AND table_name = 'events' AND column_name = 'commit_xid') THEN
        RAISE EXCEPTION 'the Handz schema is not migrated (migration 5 or later) in database %', current_database()
            USING HINT = 'run any store command as handz_admin first, e.g. handz-analytics deletions list --store postgres://handz_admin@HOST/DATABASE';
    END IF;
END
$$;

-- The roles, created only when missing (roles are cluster-wide: another database, or a run in
-- parallel, may have made them). LOGIN, without a password.
DO $$
DECLARE
    role_name text;
BEGIN
    FOREACH role_name IN ARRAY ARRAY['handz_admin', 'handz_ingest', 'handz_analyst', 'handz_follower'] LOOP
        IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = role_name) THEN
            BEGIN
                EXECUTE format('CREATE ROLE %I LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS', role_name);
            EXCEPTION WHEN duplicate_object OR unique_violation THEN
                NULL;  -- created meanwhile by a concurrent run
            END;
        END IF;
    END LOOP;
END
$$;

-- Grants only narrow what a role can do: refuse roles that hold more through their attributes
-- or through membership in another role (handz_admin, pg_read_all_data, …).
DO $$
DECLARE
    found record;
BEGIN
    FOR found IN
        SELECT r.rolname FROM pg_roles r
        WHERE r.rolname IN ('handz_ingest', 'handz_analyst')
          AND (r.rolsuper OR r.rolcreaterole OR r.rolcreatedb OR r.rolreplication OR r.rolbypassrls)
    LOOP
        RAISE EXCEPTION 'role % has SUPERUSER, CREATEROLE, CREATEDB, REPLICATION or BYPASSRLS', found.rolname
            USING HINT = 'ALTER ROLE ' || quote_ident(found.rolname) || ' NOSUPERUSER NOCREATEROLE NOCREATEDB NOREPLICATION NOBYPASSRLS';
    END LOOP;
    FOR found IN
        SELECT m.rolname AS member, g.rolname AS granted FROM pg_auth_members a
        JOIN pg_roles m ON m.oid = a.member JOIN pg_roles g ON g.oid = a.roleid
        WHERE m.rolname IN ('handz_ingest', 'handz_analyst')
    LOOP
        RAISE EXCEPTION 'role % is a member of role %, which grants more than this file', found.member, found.granted
            USING HINT = 'REVOKE ' || quote_ident(found.granted) || ' FROM ' || quote_ident(found.member);
    END LOOP;
END
$$;

-- handz_admin owns every table (their BIGSERIAL sequences and indexes follow). No-op when it
-- already does.
ALTER TABLE events OWNER TO handz_admin;
ALTER TABLE rejected_events OWNER TO handz_admin;
ALTER TABLE batches OWNER TO handz_admin;
ALTER TABLE privacy_audit OWNER TO handz_admin;
ALTER TABLE store_meta OWNER TO handz_admin;
ALTER TABLE deletion_requests OWNER TO handz_admin;
ALTER TABLE schema_migrations OWNER TO handz_admin;
ALTER TABLE install_first_seen OWNER TO handz_admin;

-- The analysts' view of events: every column but user_id. It reads events with its owner's
-- (handz_admin's) privileges, so handz_analyst needs SELECT on the view only.
CREATE OR REPLACE VIEW events_analyst AS
SELECT event_id, event_name, event_time_ms, received_time_ms, install_id, session_id, user_state,
       app_version, build_number, platform, os_version, device_model, locale, timezone,
       network_state, key_id, catalog_version, properties, commit_xid
FROM events;
ALTER VIEW events_analyst OWNER TO handz_admin;

-- Start from nothing: PUBLIC and the two roles lose every privilege on the database, the tables,
-- the view and the sequences (a table-level REVOKE also removes column-level grants).
DO $$
BEGIN
    EXECUTE format('REVOKE ALL ON DATABASE %I FROM PUBLIC, handz_ingest, handz_analyst, handz_follower', current_database());
    EXECUTE format('GRANT CONNECT ON DATABASE %I TO handz_admin, handz_ingest, handz_analyst, handz_follower', current_database());
END
$$;
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
REVOKE ALL ON SCHEMA public FROM handz_ingest, handz_analyst, handz_follower;
GRANT USAGE ON SCHEMA public TO handz_admin, handz_ingest, handz_analyst, handz_follower;
REVOKE ALL ON TABLE events, rejected_events, batches, privacy_audit, store_meta, deletion_requests,
    schema_migrations, install_first_seen, events_analyst FROM PUBLIC, handz_ingest, handz_analyst, handz_follower;
REVOKE ALL ON SEQUENCE rejected_events_id_seq, batches_id_seq, privacy_audit_id_seq
    FROM PUBLIC, handz_ingest, handz_analyst, handz_follower;

-- handz_ingest: what the server's queries use. Appends (events, quarantine, receipts, audit);
-- retention purge (DELETE); the deletion ledger; de-identification rewrites user_id, install_id,
-- session_id and the session references inside properties (crashed_session_id), and no other
-- column. schema_migrations is read only: the server checks the version, handz_admin migrates.
GRANT SELECT, INSERT, DELETE ON events TO handz_ingest;
GRANT UPDATE (user_id, install_id, session_id, properties) ON events TO handz_ingest;
GRANT SELECT, INSERT, DELETE ON rejected_events, batches, privacy_audit TO handz_ingest;
GRANT SELECT, INSERT, UPDATE ON store_meta TO handz_ingest;
GRANT SELECT, INSERT, UPDATE, DELETE ON deletion_requests TO handz_ingest;
GRANT SELECT ON schema_migrations TO handz_ingest;
-- Each install's first-seen time: upserted with the events, changed by de-identification,
-- purged by retention (issue 32 §6).
GRANT SELECT, INSERT, UPDATE, DELETE ON install_first_seen TO handz_ingest;
GRANT USAGE, SELECT ON SEQUENCE rejected_events_id_seq, batches_id_seq, privacy_audit_id_seq TO handz_ingest;

-- handz_analyst: read-only, never user_id; nothing on privacy_audit, store_meta (the audit
-- salt), deletion_requests or schema_migrations.
GRANT SELECT (event_id, event_name, event_time_ms, received_time_ms, install_id, session_id, user_state,
              app_version, build_number, platform, os_version, device_model, locale, timezone,
              network_state, key_id, catalog_version, properties, commit_xid) ON events TO handz_analyst;
GRANT SELECT ON rejected_events, batches, events_analyst, install_first_seen TO handz_analyst;

-- handz_follower: an analysis node's reads (issue 36), nothing written.
GRANT SELECT ON events, deletion_requests, store_meta, schema_migrations, install_first_seen TO handz_follower;

COMMIT;
