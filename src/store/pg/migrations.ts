// The cluster's PostgreSQL schema, as numbered migrations. Every node runs
// migrate() at start: under one advisory lock (so two nodes starting
// together do not both apply the same step), each step not yet recorded in
// schema_migrations is applied in its own transaction together with its
// record. A database migrated by a newer splitguard is refused.
//
// What lives where (docs/cluster.md): PostgreSQL holds everything; each
// node's LMDB replica holds what the redirect and authentication read, fed
// from `changes`:
//
//   change_head  one row: the sequence of the last change. A writing
//                transaction moves it as its last statement; the row lock it
//                takes orders commits, so sequences are gap-free and in
//                commit order, and a reader that has seen seq N has seen
//                every change up to N.
//   changes      seq → (kind, key, record): the record as the replica stores
//                it (store/db.ts types), null for a removal. Trimmed to the
//                last RETAIN changes (pg/replica.ts); a node further behind
//                takes a snapshot.
import { AppError } from '../../errors.js';
import { borrow, type Pool } from './client.js';

/** Arbitrary, fixed: the advisory lock key under which migrations (and the first bootstrap) run. */
const MIGRATION_LOCK = 0x5347_0001;

const MIGRATIONS: string[] = [
  // 1: the initial schema.
  `
  CREATE SEQUENCE account_ids;
  CREATE TABLE accounts (
    id bigint PRIMARY KEY DEFAULT nextval('account_ids'),
    name text NOT NULL,
    admin boolean NOT NULL DEFAULT false,
    quota integer NOT NULL CHECK (quota >= 0),
    routes_created integer NOT NULL DEFAULT 0,
    routes_active integer NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL DEFAULT now()
  );
  CREATE TABLE api_keys (
    id text PRIMARY KEY,
    hash text NOT NULL UNIQUE,
    account_id bigint NOT NULL REFERENCES accounts,
    name text NOT NULL,
    prefix text NOT NULL,
    admin boolean NOT NULL,
    created_at timestamptz NOT NULL,
    last_used_at timestamptz,
    revoked_at timestamptz
  );
  CREATE INDEX api_keys_account ON api_keys (account_id);
  CREATE TABLE users (
    email text PRIMARY KEY,
    password_hash text NOT NULL,
    admin boolean NOT NULL,
    account_id bigint NOT NULL REFERENCES accounts,
    created_at timestamptz NOT NULL
  );
  CREATE TABLE sessions (
    hash text PRIMARY KEY,
    email text NOT NULL,
    csrf text NOT NULL,
    created_at bigint NOT NULL,
    last_seen_at bigint NOT NULL
  );
  -- Every code ever given out; never deleted, so a code is never reused.
  CREATE TABLE route_codes (code text PRIMARY KEY);
  CREATE SEQUENCE route_ids;
  CREATE TABLE routes (
    id bigint PRIMARY KEY DEFAULT nextval('route_ids'),
    account_id bigint NOT NULL REFERENCES accounts,
    code text NOT NULL UNIQUE REFERENCES route_codes,
    name text NOT NULL,
    page_a text NOT NULL,
    page_b text NOT NULL,
    split_ratio double precision NOT NULL,
    default_group text NOT NULL,
    intercept_level text NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
  );
  CREATE INDEX routes_account ON routes (account_id, id);
  CREATE TABLE blacklist (
    asn bigint PRIMARY KEY,
    built_in boolean NOT NULL,
    disabled boolean NOT NULL,
    provider text NOT NULL,
    category text NOT NULL,
    level text NOT NULL,
    note text NOT NULL,
    updated_at text NOT NULL
  );
  -- Click counters per route and UTC day number (days since the epoch).
  CREATE TABLE route_days (
    route_id bigint NOT NULL,
    day integer NOT NULL,
    clicks bigint NOT NULL DEFAULT 0,
    a bigint NOT NULL DEFAULT 0,
    b bigint NOT NULL DEFAULT 0,
    intercepted bigint NOT NULL DEFAULT 0,
    asn_blacklist bigint NOT NULL DEFAULT 0,
    org_keyword bigint NOT NULL DEFAULT 0,
    vpn_proxy bigint NOT NULL DEFAULT 0,
    carrier_whitelist bigint NOT NULL DEFAULT 0,
    check_failed bigint NOT NULL DEFAULT 0,
    range_feed bigint NOT NULL DEFAULT 0,
    crawler bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (route_id, day)
  );
  -- The last click flush of each node that is in route_days (pg/clicks.ts).
  CREATE TABLE click_flushes (node text PRIMARY KEY, seq bigint NOT NULL);
  -- Each account's last refresh trigger (ms since the epoch).
  CREATE TABLE refresh_triggers (account_id bigint PRIMARY KEY, last_at bigint NOT NULL);
  -- Refresh and feed state by name (store/state-store.ts).
  CREATE TABLE state (name text PRIMARY KEY, value jsonb NOT NULL);
  -- Database files published by the refresh leader, newest kept (pg/ipdb.ts).
  CREATE TABLE ipdb_files (
    version bigint PRIMARY KEY,
    sha256 text NOT NULL,
    size bigint NOT NULL,
    data bytea NOT NULL,
    published_by text NOT NULL,
    published_at timestamptz NOT NULL DEFAULT now()
  );
  CREATE TABLE change_head (one boolean PRIMARY KEY DEFAULT true CHECK (one), seq bigint NOT NULL);
  INSERT INTO change_head VALUES (true, 0);
  CREATE TABLE changes (
    seq bigint PRIMARY KEY,
    kind text NOT NULL,
    key text NOT NULL,
    record jsonb,
    at timestamptz NOT NULL DEFAULT clock_timestamp()
  );
  -- What each node last reported (cluster status, the limiters' local share).
  CREATE TABLE nodes (
    name text PRIMARY KEY,
    started_at timestamptz NOT NULL,
    last_seen timestamptz NOT NULL,
    applied_seq bigint NOT NULL,
    lag_ms integer NOT NULL,
    ready boolean NOT NULL,
    ipdb_version text,
    ipdb_sha256 text,
    redis text NOT NULL
  );
  `,
  // 2: experiments (contract §10). A route's variants, bucket layout, click-id
  // switch and last weight change in one document (null: a route from before,
  // whose two pages and split_ratio are its variants); split_ratio is null
  // with more than two variants. Per-variant clicks, unique-visitor sketches
  // (HLL registers; day 0 is the route's lifetime), conversions once per
  // (route, goal, visitor), their day counters, and server secrets.
  `
  ALTER TABLE routes ADD COLUMN experiment jsonb;
  ALTER TABLE routes ALTER COLUMN split_ratio DROP NOT NULL;
  CREATE TABLE variant_days (route_id bigint NOT NULL, day integer NOT NULL, clicks double precision[] NOT NULL, PRIMARY KEY (route_id, day));
  CREATE TABLE sketches (route_id bigint NOT NULL, day integer NOT NULL, variant smallint NOT NULL, registers bytea NOT NULL, PRIMARY KEY (route_id, day, variant));
  CREATE TABLE conversions (
    route_id bigint NOT NULL, goal text NOT NULL, visitor text NOT NULL,
    variant smallint NOT NULL, day integer NOT NULL, at bigint NOT NULL, value double precision,
    PRIMARY KEY (route_id, goal, visitor)
  );
  CREATE TABLE conversion_days (
    route_id bigint NOT NULL, day integer NOT NULL, goal text NOT NULL,
    count double precision[] NOT NULL, value double precision[] NOT NULL,
    PRIMARY KEY (route_id, day, goal)
  );
  CREATE TABLE secrets (name text PRIMARY KEY, value bytea NOT NULL);
  `,
  // 3: the process that holds each node name (store/pg/node.ts, the claim):
  // `<node name>:<16 hex digits>`, null for a row of a node from before.
  `
  ALTER TABLE nodes ADD COLUMN instance text;
  `,
  // 4: the conversions each account stores, which its quota bounds
  // (SPLITGUARD_CONVERSION_QUOTA): added to in addConversions' transaction,
  // under the row's lock, and subtracted from by a route's deletion; counted
  // here from what the database holds.
  `
  CREATE TABLE account_conversions (account_id bigint PRIMARY KEY, stored bigint NOT NULL CHECK (stored >= 0));
  INSERT INTO account_conversions (account_id, stored)
    SELECT r.account_id, count(*) FROM conversions c JOIN routes r ON r.id = c.route_id GROUP BY r.account_id;
  `,
  // 5: the counts follow the tables themselves, whoever writes them: during a
  // rolling upgrade a node of the version before 4 still stores and deletes
  // conversions without knowing account_conversions, and a route it deleted
  // stayed counted for good (its tenant refused below the quota), what it
  // stored never counted (docs/reliability.md, finding 124, amended). A
  // statement inserting conversions adds them to their accounts' counts
  // (the rows taken in id order), unless its transaction counts its own
  // (addConversions sets splitguard.counting as it locks the rows, and
  // writes each count once: a trigger's update for every conversion cost
  // about 30 µs each); a route's deletion subtracts its conversions before
  // they go (its row is locked first, as by every writer of its
  // conversions). The counts are taken again here: the lock keeps every
  // writer out meanwhile.
  `
  LOCK TABLE routes, conversions IN SHARE ROW EXCLUSIVE MODE;
  CREATE FUNCTION account_conversions_added() RETURNS trigger LANGUAGE plpgsql AS $f$
  BEGIN
    IF current_setting('splitguard.counting', true) = 'on' THEN RETURN NULL; END IF;
    INSERT INTO account_conversions (account_id, stored)
      SELECT r.account_id, count(*) FROM added JOIN routes r ON r.id = added.route_id GROUP BY r.account_id ORDER BY r.account_id
    ON CONFLICT (account_id) DO UPDATE SET stored = account_conversions.stored + EXCLUDED.stored;
    RETURN NULL;
  END $f$;
  CREATE TRIGGER conversions_counted AFTER INSERT ON conversions REFERENCING NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION account_conversions_added();
  CREATE FUNCTION account_conversions_route_gone() RETURNS trigger LANGUAGE plpgsql AS $f$
  BEGIN
    UPDATE account_conversions SET stored = greatest(0, stored - (SELECT count(*) FROM conversions WHERE route_id = OLD.id))
      WHERE account_id = OLD.account_id;
    RETURN OLD;
  END $f$;
  CREATE TRIGGER route_conversions_uncounted BEFORE DELETE ON routes
    FOR EACH ROW EXECUTE FUNCTION account_conversions_route_gone();
  DELETE FROM account_conversions;
  INSERT INTO account_conversions (account_id, stored)
    SELECT r.account_id, count(*) FROM conversions c JOIN routes r ON r.id = c.route_id GROUP BY r.account_id;
  `,
  // 6: the settings a cluster's nodes must share, as each node publishes
  // them with its heartbeat (store/pg/node.ts): SPLITGUARD_SKETCH_DAYS, which
  // the sketch prune takes the longest of among the live nodes
  // (pg/sketch-prune.ts), and SPLITGUARD_CONVERSION_QUOTA. Null for a node of
  // the version before, which writes neither.
  `
  ALTER TABLE nodes ADD COLUMN sketch_days integer, ADD COLUMN conversion_quota bigint;
  `,
  // 7: a user's sessions by email, which Sign out everywhere and a password
  // change delete together (pg/backend.ts endSessions).
  `
  CREATE INDEX IF NOT EXISTS sessions_email ON sessions (email);
  `,
];

/**
 * Applies the migrations this database lacks, then runs `whileLocked` still
 * under the lock (a first start's bootstrap, which must happen once however
 * many nodes start together).
 */
export async function migrate(pool: Pool, whileLocked: () => Promise<void> = async () => {}): Promise<void> {
  const lent = await borrow(pool);
  const { client } = lent;
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
      const { rows } = await client.query<{ v: number | null }>('SELECT max(version) AS v FROM schema_migrations');
      const version = rows[0].v ?? 0;
      if (version > MIGRATIONS.length) {
        throw new AppError('cluster_schema_newer', `PostgreSQL holds schema version ${version}, newer than this splitguard (${MIGRATIONS.length}); upgrade splitguard`);
      }
      for (let v = version; v < MIGRATIONS.length; v++) {
        await client.query('BEGIN');
        try {
          await client.query(MIGRATIONS[v]);
          await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [v + 1]);
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK');
          throw err;
        }
      }
      await whileLocked();
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    lent.release();
  }
}
