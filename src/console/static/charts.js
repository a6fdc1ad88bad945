// Inline SVG charts for the route page: a column chart (clicks per day) and
// a horizontal bar chart (group split, rule hits). Drawn with DOM calls only
// (labels are text nodes, never markup), with labelled axes, a value on every
// bar, and a <title>/<desc> pair so a screen reader gets the numbers too.
const NS = 'http://www.w3.org/2000/svg';
let chartId = 0;

function s(tag, attrs = {}, text) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = String(text);
  return el;
}

/** A round axis maximum at or above `max` and its tick step (1, 2 or 5 × 10^n). */
export function niceScale(max, ticks = 4) {
  if (!(max > 0)) return { top: ticks, step: 1 };
  const raw = max / ticks;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((v) => v >= raw);
  const whole = Math.max(1, Math.round(step));
  return { top: Math.ceil(max / whole) * whole, step: whole };
}

function frame(title, desc, width, height) {
  const id = `chart${++chartId}`;
  const svg = s('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-labelledby': `${id}-t ${id}-d`, class: 'chart' });
  svg.append(s('title', { id: `${id}-t` }, title), s('desc', { id: `${id}-d` }, desc));
  return svg;
}

/**
 * Vertical columns, one per label. options: title, labels, values,
 * xTitle, yTitle, keys (a data-key per column, e.g. the date).
 */
export function columnChart({ title, labels, values, xTitle, yTitle, keys = labels }) {
  const W = 440;
  const H = 250;
  const m = { left: 56, right: 12, top: 24, bottom: 56 };
  const pw = W - m.left - m.right;
  const ph = H - m.top - m.bottom;
  const { top, step } = niceScale(Math.max(...values, 0));
  const y = (v) => m.top + ph - (v / top) * ph;
  const svg = frame(title, labels.map((l, i) => `${l}: ${values[i]}`).join('; '), W, H);

  for (let v = 0; v <= top; v += step) {
    svg.append(
      s('line', { x1: m.left, x2: W - m.right, y1: y(v), y2: y(v), class: v === 0 ? 'axis' : 'grid' }),
      s('text', { x: m.left - 6, y: y(v) + 4, 'text-anchor': 'end', class: 'tick' }, v),
    );
  }
  const band = pw / labels.length;
  const bw = Math.min(40, band * 0.6);
  labels.forEach((label, i) => {
    const cx = m.left + band * i + band / 2;
    const v = values[i];
    const bar = s('rect', { x: cx - bw / 2, y: y(v), width: bw, height: Math.max(0, m.top + ph - y(v)), class: 'bar', 'data-key': keys[i], 'data-value': v });
    bar.append(s('title', {}, `${label}: ${v}`));
    svg.append(
      bar,
      s('text', { x: cx, y: y(v) - 5, 'text-anchor': 'middle', class: 'value' }, v),
      s('text', { x: cx, y: m.top + ph + 18, 'text-anchor': 'middle', class: 'tick' }, label),
    );
  });
  svg.append(
    s('line', { x1: m.left, x2: m.left, y1: m.top, y2: m.top + ph, class: 'axis' }),
    s('text', { x: m.left + pw / 2, y: H - 8, 'text-anchor': 'middle', class: 'axis-title' }, xTitle),
    s('text', { x: 14, y: m.top + ph / 2, 'text-anchor': 'middle', class: 'axis-title', transform: `rotate(-90 14 ${m.top + ph / 2})` }, yTitle),
  );
  return svg;
}

/**
 * Horizontal bars, one per label. options: title, labels, values, xTitle,
 * keys, classes (a CSS class per bar, for colour).
 */
export function barChart({ title, labels, values, xTitle, keys = labels, classes = [] }) {
  const W = 440;
  const rowH = 30;
  const m = { left: 136, right: 44, top: 10, bottom: 48 };
  const ph = rowH * labels.length;
  const H = m.top + ph + m.bottom;
  const pw = W - m.left - m.right;
  const { top, step } = niceScale(Math.max(...values, 0));
  const x = (v) => m.left + (v / top) * pw;
  const svg = frame(title, labels.map((l, i) => `${l}: ${values[i]}`).join('; '), W, H);

  for (let v = 0; v <= top; v += step) {
    svg.append(
      s('line', { x1: x(v), x2: x(v), y1: m.top, y2: m.top + ph, class: v === 0 ? 'axis' : 'grid' }),
      s('text', { x: x(v), y: m.top + ph + 18, 'text-anchor': 'middle', class: 'tick' }, v),
    );
  }
  labels.forEach((label, i) => {
    const cy = m.top + rowH * i + rowH / 2;
    const v = values[i];
    const bar = s('rect', { x: m.left, y: cy - 9, width: Math.max(0, x(v) - m.left), height: 18, class: `bar ${classes[i] ?? ''}`, 'data-key': keys[i], 'data-value': v });
    bar.append(s('title', {}, `${label}: ${v}`));
    svg.append(
      s('text', { x: m.left - 8, y: cy + 4, 'text-anchor': 'end', class: 'label' }, label),
      bar,
      s('text', { x: x(v) + 5, y: cy + 4, class: 'value' }, v),
    );
  });
  svg.append(
    s('line', { x1: m.left, x2: W - m.right, y1: m.top + ph, y2: m.top + ph, class: 'axis' }),
    s('text', { x: m.left + pw / 2, y: H - 8, 'text-anchor': 'middle', class: 'axis-title' }, xTitle),
  );
  return svg;
}

/**
 * Conversion rates with their 95 % intervals, one row per variant: a line
 * from the interval's low to its high end and a dot at the rate. options:
 * title, labels, keys, rates (null: no visitors), intervals ([lo, hi] or
 * null), xTitle. The axis is in percent, from 0 to a round top above the
 * highest interval end.
 */
export function intervalChart({ title, labels, keys, rates, intervals, xTitle }) {
  const W = 440;
  const rowH = 30;
  const m = { left: 96, right: 60, top: 10, bottom: 48 };
  const ph = rowH * labels.length;
  const H = m.top + ph + m.bottom;
  const pw = W - m.left - m.right;
  const pct = (v) => Math.round(v * 10000) / 100;
  const highest = Math.max(0, ...intervals.map((ci) => (ci ? ci[1] : 0)));
  const { top, step } = niceScale(Math.max(pct(highest), 1));
  const x = (v) => m.left + (pct(v) / top) * pw;
  const text = labels.map((l, i) => (rates[i] === null ? `${l}: no visitors` : `${l}: ${pct(rates[i])} % (95 % interval ${pct(intervals[i][0])} to ${pct(intervals[i][1])} %)`));
  const svg = frame(title, text.join('; '), W, H);
  for (let v = 0; v <= top; v += step) {
    const at = m.left + (v / top) * pw;
    svg.append(
      s('line', { x1: at, x2: at, y1: m.top, y2: m.top + ph, class: v === 0 ? 'axis' : 'grid' }),
      s('text', { x: at, y: m.top + ph + 18, 'text-anchor': 'middle', class: 'tick' }, `${v}`),
    );
  }
  labels.forEach((label, i) => {
    const cy = m.top + rowH * i + rowH / 2;
    svg.append(s('text', { x: m.left - 8, y: cy + 4, 'text-anchor': 'end', class: 'label' }, label));
    if (rates[i] === null) {
      svg.append(s('text', { x: m.left + 5, y: cy + 4, class: 'value' }, 'no visitors'));
      return;
    }
    const [lo, hi] = intervals[i];
    const g = s('g', { class: 'interval', 'data-key': keys[i], 'data-rate': rates[i], 'data-low': lo, 'data-high': hi });
    g.append(
      s('title', {}, text[i]),
      s('line', { x1: x(lo), x2: x(hi), y1: cy, y2: cy, class: 'ci' }),
      s('line', { x1: x(lo), x2: x(lo), y1: cy - 6, y2: cy + 6, class: 'ci' }),
      s('line', { x1: x(hi), x2: x(hi), y1: cy - 6, y2: cy + 6, class: 'ci' }),
      s('circle', { cx: x(rates[i]), cy, r: 5, class: 'rate' }),
    );
    svg.append(g, s('text', { x: x(hi) + 6, y: cy + 4, class: 'value' }, `${pct(rates[i])} %`));
  });
  svg.append(
    s('line', { x1: m.left, x2: W - m.right, y1: m.top + ph, y2: m.top + ph, class: 'axis' }),
    s('text', { x: m.left + pw / 2, y: H - 8, 'text-anchor': 'middle', class: 'axis-title' }, xTitle),
  );
  return svg;
}
