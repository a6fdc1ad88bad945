// A loopback stand-in for feed publishers: serves whatever body a test puts
// at a path, with an ETag for conditional requests, or fails in a chosen way.
// Every request is recorded (path, If-None-Match, status).
import http from 'node:http';
import { afterAll, beforeAll } from 'vitest';
import { listenLoopback } from './loopback.js';
import { NO_RATE_LIMIT } from './routes.js';
import { startServer, type TestServer } from './server.js';

type FeedReply =
  /** `held`: answered once it settles (a publisher slow to send, while a test acts). */
  | { body: string | Buffer; etag?: string; held?: Promise<unknown> }
  | { status: number }
  | 'refuse';

export interface FeedServer {
  base: string;
  /** What each path answers; change it between refreshes. */
  routes: Map<string, FeedReply>;
  requests: { path: string; ifNoneMatch: string | undefined; status: number }[];
  url(path: string): string;
  close(): Promise<void>;
}

export async function startFeedServer(): Promise<FeedServer> {
  const routes = new Map<string, FeedReply>();
  const requests: FeedServer['requests'] = [];
  const server = http.createServer(async (req, res) => {
    const path = (req.url ?? '').split('?')[0];
    const entry = { path, ifNoneMatch: req.headers['if-none-match'], status: 0 };
    requests.push(entry);
    const reply = routes.get(path);
    if (reply === 'refuse') {
      entry.status = -1;
      req.socket.destroy();
      return;
    }
    if (reply === undefined || 'status' in reply) {
      entry.status = reply === undefined ? 404 : reply.status;
      res.writeHead(entry.status, { 'Content-Type': 'text/plain' });
      res.end('not here\n');
      return;
    }
    await reply.held;
    const etag = reply.etag ?? `"${Buffer.byteLength(reply.body)}"`;
    if (entry.ifNoneMatch === etag) {
      entry.status = 304;
      res.writeHead(304, { ETag: etag });
      res.end();
      return;
    }
    entry.status = 200;
    res.writeHead(200, { ETag: etag, 'Content-Length': String(Buffer.byteLength(reply.body)) });
    res.end(reply.body);
  });
  const { base, close } = await listenLoopback(server);
  return { base, routes, requests, url: (path) => `${base}${path}`, close };
}

/**
 * For a test file: a feed server answering `routes` (path → reply), and a
 * server folding in only the feeds `sources` names, each fetched from its
 * paths (`'/a,/b'`: tried in order; `'/v4|/v6'`: read together), with the
 * ASN data from the package; started before the file's tests, closed after.
 */
export function useFeedServer(routes: Record<string, FeedReply>, sources: Record<string, string>, options: { threads?: number } = {}): { server: TestServer; feeds: FeedServer } {
  const ctx = {} as { server: TestServer; feeds: FeedServer };
  beforeAll(async () => {
    ctx.feeds = await startFeedServer();
    for (const [path, reply] of Object.entries(routes)) ctx.feeds.routes.set(path, reply);
    const urls = (spec: string) => spec.replace(/\/[^,|]*/g, (path) => ctx.feeds.url(path));
    ctx.server = await startServer({
      threads: options.threads,
      env: {
        ...NO_RATE_LIMIT,
        SPLITGUARD_IPDB_SOURCES: 'package:',
        SPLITGUARD_FEEDS: Object.keys(sources).join(','),
        SPLITGUARD_FEED_SOURCES: Object.entries(sources).map(([feed, spec]) => `${feed}=${urls(spec)}`).join(';'),
      },
    });
  });
  afterAll(async () => {
    await ctx.server?.close();
    await ctx.feeds?.close();
  });
  return ctx;
}

/** A Tor bulk exit list as the Tor Project serves it: one IPv4 address a line. */
export const torList = (ips: string[]): string => `${ips.join('\n')}\n`;

/**
 * An Onionoo details document as onionoo.torproject.org answers the Exit
 * query (one relay a line): each relay's OR addresses ("1.2.3.4:9001",
 * "[2001:db8::1]:443"), exit addresses and flags.
 */
export function onionooDetails(relays: { or: string[]; exits?: string[]; flags?: string[] }[], published = '2026-11-23 10:00:00'): string {
  const lines = relays.map((r) => JSON.stringify({ or_addresses: r.or, ...(r.exits ? { exit_addresses: r.exits } : {}), flags: r.flags ?? ['Exit', 'Fast', 'Running', 'Valid'] }));
  return `{"version":"8.0",\n"build_revision":"89598ea",\n"relays_published":"${published}",\n"relays":[\n${lines.join(',\n')}\n],\n"bridges_published":"${published}",\n"bridges":[\n]}\n`;
}

/** An AWS ip-ranges.json with the given IPv4 prefixes (and one IPv6 prefix of the real list, within the feed's cap). */
export function awsRanges(prefixes: string[], syncToken = '1763000000'): string {
  return JSON.stringify({
    syncToken,
    createDate: '2026-11-20-10-00-00',
    prefixes: prefixes.map((p) => ({ ip_prefix: p, region: 'eu-west-1', service: 'AMAZON', network_border_group: 'eu-west-1' })),
    ipv6_prefixes: [{ ipv6_prefix: '2406:da1e::/32', region: 'us-east-1', service: 'AMAZON', network_border_group: 'us-east-1' }],
  }, null, 2);
}
