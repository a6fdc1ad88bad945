// Appending to the change log (migrations.ts describes it) from inside a
// writing transaction.
import type { ChangeKind } from '../feed.js';
import type { Queryable } from './client.js';

/** The NOTIFY channel every node LISTENs on; the payload is the new head sequence. */
export const CHANNEL = 'splitguard_changes';

export interface NewChange {
  kind: ChangeKind;
  key: string | number;
  /** The record as the replica stores it; null for a removal. */
  record: unknown;
}

/**
 * Appends `changes` and notifies; resolves with the last one's sequence.
 * Call it as the transaction's last statement: moving the head takes the
 * head row's lock, which orders the commits of all writers and is held
 * until this transaction ends.
 */
export async function appendChanges(c: Queryable, changes: readonly NewChange[]): Promise<number> {
  const { rows } = await c.query<{ seq: number }>(
    `WITH head AS (UPDATE change_head SET seq = seq + $1 RETURNING seq),
          added AS (INSERT INTO changes (seq, kind, key, record)
                    SELECT head.seq - $1 + c.n, c.kind, c.key, c.record
                      FROM head, unnest($2::text[], $3::text[], $4::jsonb[]) WITH ORDINALITY AS c(kind, key, record, n))
     SELECT seq, pg_notify('${CHANNEL}', seq::text) FROM head`,
    [
      changes.length,
      changes.map((c) => c.kind),
      changes.map((c) => String(c.key)),
      changes.map((c) => (c.record === null ? null : JSON.stringify(c.record))),
    ],
  );
  return rows[0].seq;
}
