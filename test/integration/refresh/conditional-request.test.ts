// An unchanged source costs one round trip: the second refresh of a valid
// source sends If-None-Match and If-Modified-Since from the first download,
// gets 304, records the outcome "unchanged" and builds nothing (the serving
// database stays the same file). Once the source changes (new ETag and
// Last-Modified), the same conditional request gets 200 and the database is
// rebuilt.
import { expect, it } from 'vitest';
import { databaseStatus, identity, metric, newAccount, refreshNow, serverWithValidSource, sourceName } from '../../helpers/refresh.js';
import { FILES } from '../../helpers/sources.js';

const ctx = serverWithValidSource();

const byFile = <T extends { file: string }>(xs: T[]) => [...xs].sort((a, b) => a.file.localeCompare(b.file));

it('skips an unchanged source with a conditional request and fetches a changed one', async () => {
  const first = await refreshNow(ctx.server, ctx.server.apiKey);
  expect(first.last_refresh).toMatchObject({ outcome: 'updated', source: sourceName(ctx.sources.location('valid')) });
  const firstRequests = byFile(ctx.sources.requests.splice(0));
  expect(firstRequests.map((r) => [r.file, r.ifNoneMatch, r.ifModifiedSince, r.status])).toEqual(
    FILES.map((f) => [f, undefined, undefined, 200]),
  );

  // Unchanged: 304 for both files, nothing rebuilt.
  const second = await refreshNow(ctx.server, (await newAccount(ctx.server, 'second')).api_key);
  const record = second.last_refresh!;
  // The version is the ASN data's that keeps serving (it was null).
  expect(record).toMatchObject({ outcome: 'unchanged', source: sourceName(ctx.sources.location('valid')), version: first.last_refresh!.version, error: null });
  expect(record.version).not.toBeNull();
  expect(record.nodes).toEqual([{ source: sourceName(ctx.sources.location('valid')), outcome: 'unchanged', error: null, ms: expect.any(Number) }]);
  const conditional = byFile(ctx.sources.requests.splice(0));
  expect(conditional).toHaveLength(2);
  for (const [i, r] of conditional.entries()) {
    expect(r.file).toBe(FILES[i]);
    expect(r.ifNoneMatch).toBe(ctx.sources.etag(FILES[i]));
    expect(r.ifModifiedSince).toBe(ctx.sources.lastModified());
    expect(r.status).toBe(304);
  }
  expect(identity(second)).toEqual(identity(first));
  expect(await metric(ctx.server, 'splitguard_ipdb_refresh_total{outcome="unchanged"}')).toBe(1);
  expect(await metric(ctx.server, 'splitguard_ipdb_swaps_total')).toBe(1);

  // Changed: the same conditional request now gets the new body.
  ctx.sources.revision++;
  const third = await refreshNow(ctx.server, (await newAccount(ctx.server, 'third')).api_key);
  expect(third.last_refresh).toMatchObject({ outcome: 'updated' });
  const changed = byFile(ctx.sources.requests.splice(0));
  expect(changed.map((r) => [r.ifNoneMatch, r.status])).toEqual(FILES.map((f) => [`"${f}-r1"`, 200]));
  expect(third.built_at).not.toBe(first.built_at);
  expect((await databaseStatus(ctx.server)).built_at).toBe(third.built_at);
  expect(await metric(ctx.server, 'splitguard_ipdb_swaps_total')).toBe(2);
}, 120_000);
