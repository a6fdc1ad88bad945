// Structured logs: one JSON object per line on stdout. Callers pass facts,
// never secrets: keys appear only as their short public prefix.
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

export function log(level: Level, event: string, fields: Record<string, unknown> = {}): void {
  const line = JSON.stringify({ ts: new Date().toISOString(), level, event, node: nodeTag, thread: threadTag, ...fields }, (_k, v) =>
    v instanceof Error ? { message: v.message, code: (v as { code?: unknown }).code, stack: v.stack } : v,
  );
  process.stdout.write(`${line}\n`);
}
