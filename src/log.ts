// Structured logs: one JSON object per line on stdout. Callers pass facts,
// never secrets: keys appear only as their short public prefix.
export type Level = 'debug' | 'info' | 'warn' | 'error';

let threadTag: string | number = 'main';

export function setLogThread(tag: string | number): void {
  threadTag = tag;
}

export function log(level: Level, event: string, fields: Record<string, unknown> = {}): void {
  const line = JSON.stringify({ ts: new Date().toISOString(), level, event, thread: threadTag, ...fields }, (_k, v) =>
    v instanceof Error ? { message: v.message, code: (v as { code?: unknown }).code, stack: v.stack } : v,
  );
  process.stdout.write(`${line}\n`);
}
