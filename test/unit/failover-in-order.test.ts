// The one failover across publishers (src/ipdb/fetch.ts inOrder), which the
// ASN data's refresh and every feed go through: sources tried in order until
// one answers, each failure reported as it happens, and a stop that ends it.
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { inOrder, type SourceFailure } from '../../src/ipdb/fetch.js';

const A = 'https://a.example/asn.csv';
const B = 'https://b.example/asn.csv';
/** A source's name is its URL as displayUrl shows it: credentials and query dropped. */
const C = 'https://user:secret@c.example/asn.csv?token=1';

describe('inOrder', () => {
  it('answers with the first source that resolves, after reporting the ones that failed before it', async () => {
    const tried: string[] = [];
    const failures: SourceFailure[] = [];
    const answer = await inOrder(
      [A, B, C],
      async (location, source) => {
        tried.push(location);
        if (location === A) throw new Error('refused');
        return `data of ${source}`;
      },
      (f) => failures.push(f),
    );
    expect(tried).toEqual([A, B]);
    expect(failures.map((f) => [f.source, (f.error as Error).message])).toEqual([[A, 'refused']]);
    expect(answer).toMatchObject({ value: `data of ${B}`, source: B });
    expect(answer!.ms).toBeGreaterThanOrEqual(0);
  });

  it('answers null once every source has failed, each failure reported in order', async () => {
    const failures: SourceFailure[] = [];
    const answer = await inOrder([A, C], async (location) => Promise.reject(new Error(`no ${location}`)), (f) => failures.push(f));
    expect(answer).toBeNull();
    expect(failures.map((f) => [f.source, (f.error as Error).message])).toEqual([[A, `no ${A}`], ['https://c.example/asn.csv', `no ${C}`]]);
  });

  it('ends with `stopped`, tries no further source and reports no failure when the stop caused it', async () => {
    const stop = new AbortController();
    const tried: string[] = [];
    const failures: SourceFailure[] = [];
    const run = inOrder(
      [A, B],
      async (location) => {
        tried.push(location);
        stop.abort();
        throw new Error('aborted download');
      },
      (f) => failures.push(f),
      stop.signal,
    );
    await expect(run).rejects.toSatisfy((err: unknown) => err instanceof AppError && err.code === 'stopped');
    expect(tried).toEqual([A]);
    expect(failures).toEqual([]);
  });

  it('tries nothing once stopped', async () => {
    const stop = new AbortController();
    stop.abort();
    let tried = 0;
    await expect(inOrder([A], async () => tried++, () => {}, stop.signal)).rejects.toSatisfy((err: unknown) => err instanceof AppError && err.code === 'stopped');
    expect(tried).toBe(0);
  });
});
