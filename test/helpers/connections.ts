// Helpers for the connection guard's tests: TLS connections that are opened
// and then held without a request, a non-reading pipeliner, and readings of a
// server process's memory, CPU time and metrics.
import { readFileSync } from 'node:fs';
import tls from 'node:tls';
import { call } from './client.js';
import type { TestServer } from './server.js';

export interface HeldConnection {
  socket: tls.TLSSocket;
  /** True once the server has ended the connection (FIN, reset or any close). */
  readonly closed: boolean;
  /** How it ended: 'end', an error code, or 'close'. */
  ended: Promise<string>;
}

/**
 * Opens a TLS connection from `localAddress` (any 127.x.y.z works on Linux
 * loopback) and resolves once the handshake is done; sends nothing. Rejects
 * when the handshake does not finish within `timeoutMs` (the server did not
 * accept it) and destroys the socket.
 */
export function holdConnection(port: number, ca: string, localAddress: string, timeoutMs = 5000): Promise<HeldConnection> {
  return new Promise((resolve, reject) => {
    let closed = false;
    let settle!: (how: string) => void;
    const ended = new Promise<string>((r) => (settle = r));
    const options = { host: '127.0.0.1', port, ca, servername: 'localhost', localAddress } as tls.ConnectionOptions;
    const socket = tls.connect(options);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no TLS handshake from ${localAddress} within ${timeoutMs} ms`));
    }, timeoutMs);
    const end = (how: string) => {
      closed = true;
      settle(how);
    };
    socket.once('end', () => end('end'));
    socket.once('error', (e: NodeJS.ErrnoException) => {
      end(e.code ?? 'error');
      clearTimeout(timer);
      reject(e);
    });
    socket.once('close', () => end('close'));
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      resolve({
        socket,
        get closed() {
          return closed;
        },
        ended,
      });
    });
  });
}

/** The value of one sample in Prometheus text, e.g. sample(text, 'splitguard_connections'). */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  if (!line) throw new Error(`no sample ${series} in:\n${text}`);
  return Number(line.slice(series.length + 1));
}

/** One sample from the server's /metrics (asked on thread 0's port, from 127.0.0.1). */
export async function metric(server: TestServer, series: string): Promise<number> {
  const r = await call(server.ports[0], server.ca, 'GET', '/metrics');
  if (r.status !== 200) throw new Error(`/metrics answered ${r.status}`);
  return sample(r.body, series);
}

/** Resident memory of a process in MiB (VmRSS). */
export function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS for ${pid}`);
  return Number(m[1]) / 1024;
}

/** CPU time (user + system) a process has used, in clock ticks (usually 1/100 s). */
export function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may contain spaces; fields 14 and 15 follow its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** The sum of one field over the server's `connections_shed` log lines. */
export function shedInLogs(server: TestServer, reason: 'per_address' | 'global' | 'not_reading'): number {
  return server
    .logs()
    .filter((l) => l.event === 'connections_shed')
    .reduce((sum, l) => sum + Number(l[reason] ?? 0), 0);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Pipeliner {
  /** Requests written so far. */
  readonly sent: number;
  /** Resolves with how the server ended the connection and when (ms after the start). */
  ended: Promise<{ how: string; ms: number }>;
  stop(): void;
}

/**
 * A client that pipelines `request` over one TLS connection and never reads
 * an answer: `batch` copies every `everyMs` while its own write buffer is
 * small (it never stops for the server). Paced rather than all at once, as a
 * patient attacker would: the server keeps reading, parsing and answering,
 * and the answers pile up in the server once the kernel's queues are full.
 */
export async function pipelineWithoutReading(port: number, ca: string, request: string, batch = 200, everyMs = 20): Promise<Pipeliner> {
  const started = performance.now();
  const socket = tls.connect({ host: '127.0.0.1', port, ca, servername: 'localhost' });
  let settle!: (v: { how: string; ms: number }) => void;
  const ended = new Promise<{ how: string; ms: number }>((r) => (settle = r));
  const end = (how: string) => settle({ how, ms: performance.now() - started });
  socket.once('end', () => end('end'));
  socket.once('error', (e: NodeJS.ErrnoException) => end(e.code ?? 'error'));
  socket.once('close', () => end('close'));
  await new Promise<void>((resolve, reject) => {
    socket.once('secureConnect', resolve);
    socket.once('error', reject);
  });
  // Never read: paused, the socket takes nothing from the kernel, whose
  // receive window closes once its buffer is full.
  socket.pause();
  const bytes = Buffer.from(request.repeat(batch), 'latin1');
  let sent = 0;
  const timer = setInterval(() => {
    if (socket.destroyed) return clearInterval(timer);
    if (socket.writableLength < 1 << 20) {
      socket.write(bytes);
      sent += batch;
    }
  }, everyMs);
  void ended.then(() => clearInterval(timer));
  return {
    get sent() {
      return sent;
    },
    ended,
    stop() {
      clearInterval(timer);
      socket.destroy();
    },
  };
}
