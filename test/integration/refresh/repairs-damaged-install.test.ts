// A refresh checks what is installed, not only what the source says: with
// garbage written over current.trie after a refresh, the next triggered
// refresh and `splitguard ipdb refresh` both rebuild it (no conditional
// request is sent, so the unchanged source answers 200, not 304). Before,
// both answered "unchanged" and the damage survived restarts.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { newAccount, refreshNow, serverWithValidSource } from '../../helpers/refresh.js';
import { FILES } from '../../helpers/sources.js';

const ctx = serverWithValidSource();
const garbage = () => writeFileSync(path.join(ctx.server.dataDir, 'ipdb', 'current.trie'), 'not a database\n'.repeat(100));

it('rebuilds a damaged current.trie on a triggered refresh although the source is unchanged', async () => {
  expect((await refreshNow(ctx.server, ctx.server.apiKey)).last_refresh).toMatchObject({ outcome: 'updated' });
  ctx.sources.requests.splice(0);
  garbage();
  const after = await refreshNow(ctx.server, (await newAccount(ctx.server, 'second')).api_key);
  expect(after.last_refresh).toMatchObject({ outcome: 'updated' });
  const requests = ctx.sources.requests.splice(0);
  expect(requests.map((r) => [r.ifNoneMatch, r.status]).sort()).toEqual(FILES.map(() => [undefined, 200]));
  expect(ctx.server.logs().some((l) => l.event === 'ipdb_installed_invalid' && (l.error as string) === 'ipdb_bad_magic')).toBe(true);
}, 120_000);

it('rebuilds it from the command line too', async () => {
  garbage();
  const cli = await runCli(['ipdb', 'refresh'], ctx.server.dataDir, { SPLITGUARD_IPDB_SOURCES: ctx.sources.location('valid') });
  expect(cli.code, cli.stderr).toBe(0);
  // Log lines first, then the record as indented JSON.
  expect(JSON.parse(cli.stdout)).toMatchObject({ trigger: 'cli', outcome: 'updated' });
  const info = await runCli(['ipdb', 'info'], ctx.server.dataDir);
  expect(info.code, info.stderr).toBe(0);
}, 120_000);
