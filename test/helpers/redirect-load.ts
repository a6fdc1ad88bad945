// Redirect load for the cluster tests: `connections` loops visiting one
// code through an endpoint (nginx in front of the nodes) until stop(),
// counting each answer by status, and transport failures apart.
import { type Endpoint, RedirectClient } from './routes.js';

export interface LoadCounts {
  /** Answers by HTTP status. */
  statuses: Record<number, number>;
  /** Requests that got no HTTP answer (reset, refused, timeout). */
  failed: number;
}

export function redirectLoad(endpoint: Endpoint, code: string, connections = 4): { counts: LoadCounts; stop(): Promise<LoadCounts> } {
  const client = new RedirectClient(endpoint, connections);
  const counts: LoadCounts = { statuses: {}, failed: 0 };
  let running = true;
  const loops = Array.from({ length: connections }, async () => {
    while (running) {
      try {
        const v = await client.visit(code);
        counts.statuses[v.status] = (counts.statuses[v.status] ?? 0) + 1;
      } catch {
        counts.failed++;
      }
    }
  });
  return {
    counts,
    async stop() {
      running = false;
      await Promise.all(loops);
      client.close();
      return counts;
    },
  };
}
