// splitguard cluster status: what every node last reported (its heartbeat
// row, pg/node.ts), against the change log's head and the published
// database, and the shared settings on which live nodes differ, as one JSON
// object.
import type { Pool } from './client.js';
import { NODE_STALE_S, SHARED_SETTINGS } from './node.js';

type SettingColumn = (typeof SHARED_SETTINGS)[number]['column'];

interface NodeStatus {
  name: string;
  live: boolean;
  started_at: string;
  last_seen: string;
  seconds_since_seen: number;
  applied_seq: number;
  /** Changes committed that the node had not applied at its last heartbeat. */
  behind_changes: number;
  lag_ms: number;
  ready: boolean;
  /** What the node serves: the database's version (as its /healthz says), current.trie's SHA-256, and whether that is the published file. */
  database: { version: string | null; sha256: string | null; current: boolean };
  redis: string;
  /** The settings every node must share, as the node published them; null from a node of the version before. */
  settings: Record<SettingColumn, number | null>;
}

export interface ClusterReport {
  head_seq: number;
  /** The newest published file; `version` is its number in ipdb_files (a counter), not the data's version. */
  database: { version: number; sha256: string; size: number; published_by: string; published_at: string } | null;
  nodes: NodeStatus[];
  /** The variables of the shared settings on which live nodes differ (each logs cluster_settings_differ). */
  settings_differ: string[];
}

export async function clusterStatus(pool: Pool): Promise<ClusterReport> {
  const [{ rows: head }, { rows: files }, { rows: nodes }] = await Promise.all([
    pool.query<{ seq: number }>('SELECT seq FROM change_head'),
    pool.query('SELECT version, sha256, size, published_by, published_at FROM ipdb_files ORDER BY version DESC LIMIT 1'),
    pool.query('SELECT *, extract(epoch FROM now() - last_seen)::float8 AS age FROM nodes ORDER BY name'),
  ]);
  const headSeq = head[0]?.seq ?? 0;
  const published = files[0];
  const isLive = (n: (typeof nodes)[number]) => (n.age as number) < NODE_STALE_S;
  const live = nodes.filter(isLive);
  const settingsDiffer = SHARED_SETTINGS.filter(({ column }) => new Set(live.map((n) => n[column]).filter((v) => v !== null)).size > 1)
    .map(({ variable }) => variable);
  return {
    head_seq: headSeq,
    database: published
      ? { version: published.version, sha256: published.sha256, size: published.size, published_by: published.published_by, published_at: (published.published_at as Date).toISOString() }
      : null,
    nodes: nodes.map((n) => ({
      name: n.name,
      live: isLive(n),
      started_at: (n.started_at as Date).toISOString(),
      last_seen: (n.last_seen as Date).toISOString(),
      seconds_since_seen: Math.round((n.age as number) * 10) / 10,
      applied_seq: n.applied_seq,
      behind_changes: Math.max(0, headSeq - (n.applied_seq as number)),
      lag_ms: n.lag_ms,
      ready: n.ready,
      database: { version: n.ipdb_version, sha256: n.ipdb_sha256, current: published !== undefined && n.ipdb_sha256 === published.sha256 },
      redis: n.redis,
      settings: Object.fromEntries(SHARED_SETTINGS.map(({ column }) => [column, n[column] ?? null])) as NodeStatus['settings'],
    })),
    settings_differ: settingsDiffer,
  };
}
