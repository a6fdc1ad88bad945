// A thread's visit recorder keeps a few bytes per register it has seen, not
// a dense sketch per (route, day, variant): a tenant's 1,000 routes of 8
// variants, each visited once, held 8,000 sketches of 32 KiB (256 MiB) in
// every server thread, kept for as long as the visits went on.
import { expect, it } from 'vitest';
import { SipHash } from '../../../src/experiments/siphash.js';
import { VisitRecorder } from '../../../src/experiments/visits.js';
import { useExperimentsStore } from '../../helpers/experiments-store.js';

const experiments = useExperimentsStore('sg-visits-memory-');

it('holds 8,000 once-visited sketches in a few MiB', () => {
  const recorder = new VisitRecorder(experiments);
  const sip = new SipHash(new Uint8Array(16).fill(9));
  const bytes = new Uint8Array(8);
  const before = process.memoryUsage().arrayBuffers;
  for (let route = 1; route <= 1000; route++) {
    for (let variant = 0; variant < 8; variant++) {
      new DataView(bytes.buffer).setUint32(0, route * 8 + variant);
      sip.hash(bytes, 8);
      recorder.record(route, 20_500, variant, sip.hi, sip.lo);
    }
  }
  const grew = process.memoryUsage().arrayBuffers - before;
  // Dense: 8,000 × 32 KiB = 250 MiB. Sparse: about 100 bytes each.
  expect(grew).toBeLessThan(8 * 1024 * 1024);
});
