// While the store says it cannot be written (PostgreSQL known to be away), a
// visit recorder's flush takes nothing: no sketch is serialised and no batch
// sent; what it counted meanwhile is all written once the store is back.
// Before, every flush (once a second, on the redirect's thread) serialised
// every sketch with news, 32 KiB each once dense, only to be refused: with
// 1,000 routes visited during an outage, redirects waited a second.
import { expect, it } from 'vitest';
import { SipHash } from '../../../src/experiments/siphash.js';
import { VisitRecorder } from '../../../src/experiments/visits.js';
import { useExperimentsStore } from '../../helpers/experiments-store.js';

const experiments = useExperimentsStore('sg-visits-away-');

it('sends nothing while the store is away, and everything once it is back', async () => {
  let away = true;
  let batches = 0;
  const writable = experiments.writable.bind(experiments);
  const addVisits = experiments.addVisits.bind(experiments);
  experiments.writable = () => !away && writable();
  experiments.addVisits = (batch, seq) => {
    batches++;
    return addVisits(batch, seq);
  };
  const recorder = new VisitRecorder(experiments);
  const sip = new SipHash(new Uint8Array(16).fill(5));
  const bytes = new Uint8Array(8);
  const DAY = 20_416;
  for (let round = 0; round < 3; round++) {
    for (let i = 0; i < 500; i++) {
      new DataView(bytes.buffer).setUint32(0, i + 500 * round);
      sip.hash(bytes, 8);
      recorder.record(7, DAY, i % 2, sip.hi, sip.lo);
    }
    await recorder.flush();
  }
  expect(batches).toBe(0);
  expect((await experiments.variantDays(7, DAY, DAY)).size).toBe(0);

  away = false;
  await recorder.flush();
  expect(batches).toBe(1);
  expect((await experiments.variantDays(7, DAY, DAY)).get(DAY)!.slice(0, 2)).toEqual([750, 750]);
});
