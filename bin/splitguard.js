#!/usr/bin/env node
// Entry point of the splitguard command; the code lives in dist/ (npm run build).
import { existsSync } from 'node:fs';

const entry = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('splitguard: dist/ is missing; run "npm run build" (npm ci does it)\n');
  process.exit(1);
}
const { main } = await import(entry.href);
await main();
