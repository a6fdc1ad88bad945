// A build that outgrows its heap (SPLITGUARD_BUILD_MEMORY_MB) fails that
// source, naming the limit, and the server and its database keep serving:
// the build's process ends, not the server's. The real data needs about
// 200 MB; here the limit is 128. Before, the build ran in a thread of the
// server with no limit of its own, and a build past the process's memory
// ended the server (finding 103).
import { it } from 'vitest';
import { expectFailedRefreshKeepsServing, serverWithValidSource } from '../../helpers/refresh.js';

const ctx = serverWithValidSource({ env: { SPLITGUARD_BUILD_MEMORY_MB: '128' } });

it('fails a build past its heap limit and keeps the database serving', async () => {
  await expectFailedRefreshKeepsServing(ctx.server, ctx.sources.location('valid'), /the database build failed: it ran out of its 128 MB heap \(SPLITGUARD_BUILD_MEMORY_MB\)/);
});
