// The sticky split over up to 8 variants (contract §5.4, §10). A visitor's
// bucket for a route (redirect/visitor.ts: a stable hash mapped to [0, 1))
// falls in one segment of the route's layout, and the segment's owner is the
// variant the visitor is sent to.
//
// A layout is a flat list of pairs, ascending:
//
//   [end_0, owner_0, end_1, owner_1, ..., 1, owner_k]
//
// segment i is [end_{i-1}, end_i) (end_{-1} = 0) and belongs to variant
// owner_i (0 = a ... 7 = h); the last end is exactly 1, and adjacent segments
// have different owners. A new route's layout is the cumulative weights in
// key order (so with two variants bucket < split_ratio → a, as in §5.4).
//
// When the weights change, the layout changes as little as any split can:
// each variant whose share shrinks gives up just enough of its highest
// buckets, and the variants whose share grows take the freed buckets in key
// order, each the lowest freed buckets first. No other visitor moves, so
// the share of returning visitors who move is exactly the total variation
// distance ½ Σ |old share − new share|, the least possible. The layout is
// stored with the route (routes-store.ts) and recomputed in the transaction
// that changes the weights.

/** Beyond this many segments a weight change starts again from the cumulative layout (moving more visitors, once). */
export const MAX_SEGMENTS = 64;

/** Shares of a weight list (sum 1); weights are ≥ 0 with at least one > 0. */
export function shares(weights: readonly number[]): number[] {
  const total = weights.reduce((s, w) => s + w, 0);
  return weights.map((w) => w / total);
}

/** The layout of a new route: the cumulative weights in key order. */
export function initialLayout(weights: readonly number[]): number[] {
  const s = shares(weights);
  const out: number[] = [];
  let end = 0;
  let last = -1;
  for (let i = 0; i < s.length; i++) if (s[i] > 0) last = i;
  for (let i = 0; i < s.length; i++) {
    if (s[i] <= 0) continue;
    // The running sum may pass 1 by a rounding before the last share: held at 1.
    end = i === last ? 1 : Math.min(1, end + s[i]);
    out.push(end, i);
  }
  return out;
}

interface Segment {
  start: number;
  end: number;
  owner: number;
}

function segments(layout: readonly number[]): Segment[] {
  const out: Segment[] = [];
  let start = 0;
  for (let i = 0; i < layout.length; i += 2) {
    out.push({ start, end: layout[i], owner: layout[i + 1] });
    start = layout[i];
  }
  return out;
}

/** Each variant's share under a layout (owners at or past `count` are ignored). */
export function layoutShares(layout: readonly number[], count: number): number[] {
  const out = new Array<number>(count).fill(0);
  for (const s of segments(layout)) if (s.owner < count) out[s.owner] += s.end - s.start;
  return out;
}

/**
 * The layout after a change to `weights` (the new list; variants past its
 * end, if the list got shorter, give up everything), moving the fewest
 * buckets (see the head of this file).
 */
export function nextLayout(layout: readonly number[], weights: readonly number[]): number[] {
  const target = shares(weights);
  const segs = segments(layout);
  if (segs.length > MAX_SEGMENTS) return initialLayout(weights);
  const held = new Array<number>(Math.max(target.length, 8)).fill(0);
  for (const s of segs) held[s.owner] += s.end - s.start;

  // Shrinking variants free their highest buckets (owner -1); one whose
  // target is 0 (weight 0, or dropped from the list) frees all of them,
  // however little: a sliver kept by a variant a shorter list no longer has
  // sent its visitors to a page that does not exist (and the redirect
  // threw, ending the process).
  for (let v = 0; v < held.length; v++) {
    let give = held[v] - (target[v] ?? 0);
    if (give <= 1e-15 && (target[v] ?? 0) > 0) continue;
    for (let i = segs.length - 1; i >= 0 && give > 0; i--) {
      const s = segs[i];
      if (s.owner !== v) continue;
      const len = s.end - s.start;
      if (len <= give || (target[v] ?? 0) === 0) {
        s.owner = -1;
        give -= len;
      } else {
        const cut = s.end - give;
        segs.splice(i + 1, 0, { start: cut, end: s.end, owner: -1 });
        s.end = cut;
        give = 0;
      }
    }
  }
  // Growing variants take the freed buckets, lowest first, in key order; the
  // last one takes whatever rounding left.
  const growing: number[] = [];
  for (let v = 0; v < target.length; v++) if (target[v] - held[v] > 1e-15) growing.push(v);
  const free = segs.filter((s) => s.owner === -1).sort((x, y) => x.start - y.start);
  let g = 0;
  let need = growing.length > 0 ? target[growing[0]] - held[growing[0]] : 0;
  for (const s of free) {
    while (s.start < s.end) {
      if (g >= growing.length) {
        // Nothing grows (only rounding was freed): give it back to the lowest owner.
        s.owner = target.findIndex((t) => t > 0);
        break;
      }
      const len = s.end - s.start;
      if (len <= need || g === growing.length - 1) {
        s.owner = growing[g];
        need -= len;
        if (need <= 1e-15 && g < growing.length - 1) need = target[growing[++g]] - held[growing[g]];
        break;
      }
      // Split: the lower part to this variant, the rest goes on.
      const cut = s.start + need;
      segs.splice(segs.indexOf(s), 0, { start: s.start, end: cut, owner: growing[g] });
      s.start = cut;
      g++;
      need = g < growing.length ? target[growing[g]] - held[growing[g]] : 0;
    }
  }
  // Flatten, dropping empty segments and merging neighbours of one owner.
  const out: number[] = [];
  for (const s of segs) {
    if (s.end <= s.start) continue;
    if (out.length > 0 && out[out.length - 1] === s.owner) out[out.length - 2] = s.end;
    else out.push(s.end, s.owner);
  }
  out[out.length - 2] = 1;
  return layoutFits(out, weights) ? out : initialLayout(weights);
}

/**
 * Whether `layout` is well formed for `weights`: ends not descending, up to
 * exactly 1 (a share below a double's resolution next to a large one makes
 * an empty segment, which no bucket reaches), and every segment owned by a
 * variant of the list whose weight is above 0. A stored layout that is not
 * (written before the fix above) is replaced by the cumulative one when
 * the route is read (layoutOf).
 */
export function layoutFits(layout: readonly number[], weights: readonly number[]): boolean {
  if (layout.length < 2 || layout.length % 2 !== 0 || layout[layout.length - 2] !== 1) return false;
  let end = 0;
  for (let i = 0; i < layout.length; i += 2) {
    const owner = layout[i + 1];
    if (!(layout[i] >= end) || !Number.isInteger(owner) || !(weights[owner] > 0)) return false;
    end = layout[i];
  }
  return true;
}

/** The variant a bucket u in [0, 1) falls to. Hot path: a scan of at most MAX_SEGMENTS numbers, no allocation. */
export function variantAt(layout: Float64Array, u: number): number {
  const n = layout.length - 2;
  let i = 0;
  while (i < n && u >= layout[i]) i += 2;
  return layout[i + 1];
}
