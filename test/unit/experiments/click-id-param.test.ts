// isClickIdParam reads a query part's name as a page's query parser does
// ('+' a space, then percent-decoded, a malformed escape left as sent) and
// says whether it is sg_cid, like the reference below, but without throwing
// on a lone '%': the redirect passes every part of a stranger's query through
// it, and one exception a part made a query of 28,000 "%&" cost 120 ms
// (docs/reliability.md, finding 98).
import { expect, it } from 'vitest';
import { isClickIdParam } from '../../../src/experiments/click-id.js';

function reference(part: string): boolean {
  const eq = part.indexOf('=');
  const raw = (eq < 0 ? part : part.slice(0, eq)).replaceAll('+', ' ');
  try {
    return decodeURIComponent(raw) === 'sg_cid';
  } catch {
    return raw === 'sg_cid';
  }
}

const escape = (c: string, upper: boolean) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')[upper ? 'toUpperCase' : 'toLowerCase']()}`;

it('reads every spelling of sg_cid as the reference does', () => {
  const name = 'sg_cid';
  for (let mask = 0; mask < 1 << name.length; mask++) {
    for (const upper of [false, true]) {
      const spelt = [...name].map((c, i) => ((mask >> i) & 1 ? escape(c, upper) : c)).join('');
      for (const part of [spelt, `${spelt}=x`, `${spelt}=`, `${spelt}+=x`, `+${spelt}=x`, `${spelt}%=x`, `${spelt}%4=x`]) {
        expect(isClickIdParam(part), part).toBe(reference(part));
      }
    }
  }
});

it('agrees with the reference on 200,000 random parts of escapes, pluses and letters', () => {
  const pieces = ['%', '+', 's', 'g', '_', 'c', 'i', 'd', '5', 'F', 'f', '7', '3', '6', '%5F', '%5f', '%73', '%2B', '%20', '%C3%A9', '%E2%82', '%zz', '=', 'x', 'é', '\u{1F600}'];
  let seed = 7;
  const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
  for (let n = 0; n < 200_000; n++) {
    let part = '';
    const count = 1 + (next() % 9);
    for (let i = 0; i < count; i++) part += pieces[next() % pieces.length];
    // Now and then a near miss of the name itself.
    if (n % 97 === 0) part = `sg${part.slice(0, 2)}cid`;
    expect(isClickIdParam(part), JSON.stringify(part)).toBe(reference(part));
  }
});

it('costs a query of lone escapes no more than a plain query of the same size', () => {
  const cost = (query: string) => {
    const parts = query.split('&');
    let best = Infinity;
    for (let round = 0; round < 5; round++) {
      const t = process.hrtime.bigint();
      parts.filter((p) => !isClickIdParam(p));
      best = Math.min(best, Number(process.hrtime.bigint() - t));
    }
    return best;
  };
  const escapes = cost('%&'.repeat(28_000));
  const plain = cost('a&'.repeat(28_000));
  // With an exception for each '%' this was over 100 times the plain query.
  expect(escapes / plain).toBeLessThan(10);
});
