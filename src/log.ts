// Structured logs: one JSON object per line, on standard output for the
// server (its output is its log) and on standard error for any other
// command, whose standard output is its result. Callers pass facts, never
// secrets: keys appear only as their short public prefix.
export type Level = 'debug' | 'info' | 'warn' | 'error';

let threadTag: string | number = 'main';

export function setLogThread(tag: string | number): void {
  threadTag = tag;
}

/** Cluster mode: the node's name (SPLITGUARD_NODE_NAME) on every line; undefined (left out) on a single node. */
let nodeTag: string | undefined;

export function setLogNode(name: string): void {
  nodeTag = name;
}

let sink: NodeJS.WriteStream = process.stdout;

/** A command other than `serve`: its log goes to standard error. */
export function logToStderr(): void {
  sink = process.stderr;
}

/** The descriptor the log goes to, for a child process that logs as this one does (the build's). */
export function logFd(): 1 | 2 {
  return sink === process.stderr ? 2 : 1;
}

export function log(level: Level, event: string, fields: Record<string, unknown> = {}): void {
  const line = JSON.stringify({ ts: new Date().toISOString(), level, event, node: nodeTag, thread: threadTag, ...fields }, (_k, v) =>
    v instanceof Error ? { message: v.message, code: (v as { code?: unknown }).code, stack: v.stack } : v,
  );
  sink.write(`${line}\n`);
}
