// trak's timeline viewer: draws the rows of the track tree (tree.js), asking the backend
// (backend.js) for what is on screen at the screen's resolution: slices, instants, counters with
// their y axis, flows, a collapsed group's summary, flags, the measured span and the area
// selection; the minimap above it is minimap.js's. Input is in input.js, the panels below the
// timeline in panels.js, the CPU and thread-state tracks in system.js.
// window.trakViewer.state() describes what is drawn (the browser tests read it).
'use strict';

const LABEL_W = 230, RULER_H = 24, INDENT = 12;

const $ = (id) => document.getElementById(id);
const canvas = $('timeline');
const ctx = canvas.getContext('2d');

const backend = window.TRAK_DATA ? new EmbeddedBackend(window.TRAK_DATA) : new ServerBackend();
const view = { start: 0, end: 1, traceStart: 0, traceEnd: 1, scrollY: 0, width: 0, height: 0 };
let rows = [];                 // laid-out rows (treeRows): {kind, key, label, indent, y, h, track?, members?, pinned}
const rowOfTrack = new Map();  // track id -> {row, offset}: where its slices are drawn (lane offset)
let pinnedH = 0;               // height of the pinned rows' band under the ruler
const data = { slices: {}, counters: {}, flows: [], sched: {} }; // sched: process key -> CPU track -> entries
const drawn = { slices: [], counters: [], flows: [], labels: [], summaries: [], wakeup: null };
let selected = null;           // details answer of the selected slice
let selectedCounter = null;    // {track, ts, value, prev, name, unit}: the counter value clicked
let area = null;               // area selection: {start, end, tracks: [ids], keys: [row keys]}
let measure = null;            // {start, end}: the span `m` measured
const flags = [];              // times flagged on the ruler
let highlight = new Set();     // slice ids of the SQL result
const alerts = new Map();      // slice id -> [alert_type, message] (the analysis layer's alerts)
const search = { rows: [], index: -1, text: '' };
const net = { inflight: 0, again: false, answers: 0, error: null, key: '' };
let mouseX = null;

// ---- formatting ----------------------------------------------------------------------------

function fmtDur(ns) {
  const a = Math.abs(ns);
  const [div, unit] = a >= 1e9 ? [1e9, 's'] : a >= 1e6 ? [1e6, 'ms'] : a >= 1e3 ? [1e3, 'us'] : [1, 'ns'];
  return `${+(ns / div).toPrecision(4)} ${unit}`;
}
function fmtValue(v) {
  if (v === null || v === undefined) return '';
  return Math.abs(v) >= 1e6 || (v !== 0 && Math.abs(v) < 1e-3) ? v.toExponential(3) : `${+v.toPrecision(6)}`;
}
// A counter's value as shown (axis, tooltip, details): with the track's unit, and a delta
// track's (the server's delta_tracks: cpustat) marked "\u0394" as Perfetto does.
function fmtCounter(track, v) {
  return `${track.delta ? '\u0394' : ''}${fmtValue(v)}${track.unit ? ` ${track.unit}` : ''}`;
}
function esc(s) {
  return String(s ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

// Colour by name: the same name always gets the same hue.
const colours = new Map();
function colourOf(name) {
  let c = colours.get(name);
  if (c) return c;
  let h = 2166136261;
  for (let i = 0; i < (name || '').length; i++) h = Math.imul(h ^ name.charCodeAt(i), 16777619);
  const hue = (h >>> 0) % 360, light = 42 + ((h >>> 9) % 16);
  c = `hsl(${hue},50%,${light}%)`;
  colours.set(name, c);
  return c;
}

// ---- layout: the track tree's rows -------------------------------------------------------

function relayout() {
  const r = treeRows();
  rows = r.rows;
  pinnedH = r.pinnedH;
  view.contentHeight = r.contentH;
  rowOfTrack.clear();
  for (const row of rows) {
    if (row.pinned && rows.some((x) => !x.pinned && x.key === row.key)) continue;
    if (row.members) for (const m of row.members) rowOfTrack.set(m.track.id, { row, offset: m.offset });
    else if (row.track) rowOfTrack.set(row.track.id, { row, offset: 0 });
  }
  view.scrollY = Math.min(view.scrollY, Math.max(0, view.contentHeight - 40));
  requestData();
  draw();
}

// ---- coordinates ---------------------------------------------------------------------------

const plotW = () => Math.max(1, view.width - LABEL_W);
const xOf = (ts) => LABEL_W + ((ts - view.start) / (view.end - view.start)) * plotW();
const tsOf = (x) => view.start + ((x - LABEL_W) / plotW()) * (view.end - view.start);
const rowTop = (row) => RULER_H + row.y + (row.pinned ? 0 : pinnedH - view.scrollY);

// Shows [start, end], clamped to the trace: never wider than it, never past either end.
function setRange(start, end) {
  const full = view.traceEnd - view.traceStart;
  const span = Math.min(Math.max(end - start, 20), full);
  const mid = (start + end) / 2;
  start = mid - span / 2;
  if (start < view.traceStart) start = view.traceStart;
  if (start + span > view.traceEnd) start = view.traceEnd - span;
  view.start = start;
  view.end = start + span;
  requestData();
  draw();
}

function zoom(factor, atX) {
  const x = atX ?? LABEL_W + plotW() / 2;
  const t = tsOf(x), frac = (x - LABEL_W) / plotW();
  const span = (view.end - view.start) * factor;
  setRange(t - frac * span, t - frac * span + span);
}
function pan(fraction) {
  const d = (view.end - view.start) * fraction;
  setRange(view.start + d, view.end + d);
}
function scrollBy(dy) {
  const max = Math.max(0, view.contentHeight - (view.height - RULER_H - pinnedH) + 20);
  view.scrollY = Math.min(max, Math.max(0, view.scrollY + dy));
  requestData();
  draw();
}

// ---- data: only what is on screen, at the screen's resolution -------------------------------

function visibleRows() {
  return rows.filter((r) => { const t = rowTop(r); return t + r.h >= -100 && t <= view.height + 100; });
}

// What the screen needs: the range at its resolution and the tracks in (or near) view.
function wanted() {
  const vis = visibleRows();
  const r = { start: Math.floor(view.start), end: Math.ceil(view.end) };
  r.px = Math.max(1, Math.floor((r.end - r.start) / plotW()));
  const ids = new Set();
  for (const x of vis) {
    if (x.kind === 'slice') x.members.forEach((m) => ids.add(m.track.id));
    if (x.kind === 'sched' || x.kind === 'state') ids.add(x.track.id);
    if (x.summary) x.summary.forEach((id) => ids.add(id));
  }
  const sliceIds = [...ids];
  const counterIds = vis.filter((x) => x.kind === 'counter').map((x) => x.track.id);
  const procs = vis.filter((x) => x.sched);
  return { r, sliceIds, counterIds, procs,
    key: `${r.start}:${r.end}:${r.px}:${sliceIds}:${counterIds}:${procs.map((x) => x.key)}` };
}

async function requestData() {
  if (net.inflight) { net.again = true; return; }
  const { r, sliceIds, counterIds, procs, key } = wanted();
  if (key === net.key) return;
  net.inflight++;
  try {
    const [s, c, f, ...sched] = await Promise.all([
      sliceIds.length ? backend.slices(sliceIds, r) : {},
      counterIds.length ? backend.counters(counterIds, r) : {},
      backend.flows(r),
      ...procs.map((x) => backend.sched(x.sched.cpus.map((cpu) => cpu.id), [...x.sched.utids], r)),
    ]);
    procs.forEach((x, i) => { data.sched[x.key] = sched[i]; });
    Object.assign(data.slices, s);
    Object.assign(data.counters, c);
    data.flows = f;
    net.key = key;
    net.answers++;
    net.error = null;
  } catch (e) {
    net.error = String(e.message || e);
    showNotice(`Could not load data: ${net.error}`);
  } finally {
    net.inflight--;
  }
  draw();
  if (net.again) { net.again = false; requestData(); }
}

// ---- drawing -----------------------------------------------------------------------------

const widthCache = new Map();
function fitText(text, maxW) {
  if (maxW < 14 || !text) return '';
  let w = widthCache.get(text);
  if (w === undefined) { w = ctx.measureText(text).width; if (widthCache.size < 20000) widthCache.set(text, w); }
  if (w <= maxW) return text;
  const chars = Math.floor((maxW / w) * text.length) - 1;
  return chars >= 2 ? `${text.slice(0, chars)}\u2026` : '';
}

// Tick times of the ruler: a 1, 2 or 5 step about every 110 pixels, from the trace's start.
function ticks() {
  const raw = ((view.end - view.start) / plotW()) * 110;
  const p = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw);
  const out = [];
  const first = Math.ceil((view.start - view.traceStart) / step) * step + view.traceStart;
  for (let t = first; t <= view.end && out.length < 200; t += step) out.push(t);
  return out;
}

function drawGrid() {
  ctx.strokeStyle = '#eceff1';
  for (const t of ticks()) {
    const x = Math.round(xOf(t)) + 0.5;
    ctx.beginPath(); ctx.moveTo(x, RULER_H); ctx.lineTo(x, view.height); ctx.stroke();
  }
}

function drawRuler() {
  const span = view.end - view.start;
  ctx.fillStyle = '#eceff1';
  ctx.fillRect(0, 0, view.width, RULER_H);
  ctx.fillStyle = '#37474f';
  ctx.strokeStyle = '#90a4ae';
  ctx.font = '11px system-ui, sans-serif';
  ctx.textBaseline = 'middle';
  for (const t of ticks()) {
    const x = Math.round(xOf(t)) + 0.5;
    ctx.beginPath(); ctx.moveTo(x, RULER_H - 6); ctx.lineTo(x, RULER_H); ctx.stroke();
    ctx.fillText(fmtDur(t - view.traceStart), x + 3, RULER_H / 2);
  }
  for (const t of flags) { // a flag: a pole and a pennant
    const x = Math.round(xOf(t)) + 0.5;
    if (x < LABEL_W || x > view.width) continue;
    ctx.fillStyle = '#6a1b9a';
    ctx.fillRect(x, 2, 1, RULER_H - 2);
    ctx.beginPath(); ctx.moveTo(x + 1, 2); ctx.lineTo(x + 10, 6); ctx.lineTo(x + 1, 10); ctx.fill();
  }
  const m = measure || area;
  if (m) { // the measured span (or the area's) with its duration
    const x0 = Math.max(xOf(m.start), LABEL_W), x1 = Math.min(xOf(m.end), view.width);
    ctx.fillStyle = 'rgba(25,118,210,0.25)';
    ctx.fillRect(x0, 0, Math.max(x1 - x0, 1), RULER_H);
    ctx.fillStyle = '#0d47a1';
    ctx.fillText(fmtDur(m.end - m.start), Math.max(x0 + 3, LABEL_W + 3), RULER_H / 2);
  }
  ctx.fillStyle = '#eceff1';
  ctx.fillRect(0, 0, LABEL_W, RULER_H);
  ctx.fillStyle = '#37474f';
  ctx.fillText(`span ${fmtDur(span)}`, 8, RULER_H / 2);
}

// The slices of a row: each member track's depths in lanes from its offset.
function drawSliceRow(row, top) {
  const left = LABEL_W, right = view.width;
  ctx.font = '11px system-ui, sans-serif';
  ctx.textBaseline = 'middle';
  for (const m of row.members) {
    for (const [depth, ts, dur, id, name, count] of data.slices[m.track.id] || []) {
      const y = top + 2 + (depth + m.offset) * ROW_H, h = ROW_H - 2;
      if (y + h < RULER_H || y > view.height) continue;
      const x0 = xOf(ts);
      if (dur === 0) { // an instant: a chevron at its time
        if (x0 < left - 5 || x0 > right + 5) continue;
        ctx.fillStyle = colourOf(name);
        ctx.beginPath(); ctx.moveTo(x0, y); ctx.lineTo(x0 + 5, y + h / 2); ctx.lineTo(x0, y + h); ctx.lineTo(x0 - 5, y + h / 2); ctx.fill();
        drawn.slices.push({ id, name, ts, dur, x: x0 - 5, y, w: 10, h, track: m.track.id, row: row.key, instant: true, count, label: '' });
        continue;
      }
      const x1 = dur < 0 ? right : xOf(ts + dur);
      if (x1 < left || x0 > right) continue;
      const a = Math.max(x0, left), w = Math.max(Math.min(x1, right) - a, 1);
      ctx.fillStyle = colourOf(name);
      ctx.fillRect(a, y, w, h);
      const alert = alerts.get(id);
      let label = '';
      if (w > 16) {
        label = fitText(alert ? `\u26a0 ${name}` : name, w - 6);
        if (label) { ctx.fillStyle = '#fff'; ctx.fillText(label, a + 3, y + h / 2 + 0.5); }
      }
      if (alert) { ctx.strokeStyle = alert[0] === 'error' ? '#b71c1c' : '#ff6f00'; ctx.lineWidth = 2; ctx.strokeRect(a + 1, y + 1, w - 2, h - 2); ctx.lineWidth = 1; }
      if (highlight.has(id)) { ctx.strokeStyle = '#ffab00'; ctx.lineWidth = 3; ctx.strokeRect(a, y, w, h); ctx.lineWidth = 1; }
      if (selected && selected.slice[0] === id) { ctx.strokeStyle = '#000'; ctx.lineWidth = 2; ctx.strokeRect(a + 1, y + 1, w - 2, h - 2); ctx.lineWidth = 1; }
      drawn.slices.push({ id, name, ts, dur, x: a, y, w, h, track: m.track.id, row: row.key, count, label, alert: alert ? alert[0] : null });
    }
  }
}

// A collapsed group's summary, as Perfetto draws one: per 2-pixel column, how many of the
// group's slice tracks are busy (a top-level slice covers it), as a bar of that height.
function drawSummaryRow(row, top) {
  const cols = Math.ceil(plotW() / 2), busy = new Float32Array(cols);
  for (const id of row.summary) {
    const seen = new Uint8Array(cols);
    for (const [depth, ts, dur] of data.slices[id] || []) {
      if (depth !== 0) continue;
      const c0 = Math.max(0, Math.floor((xOf(ts) - LABEL_W) / 2));
      const c1 = Math.min(cols - 1, Math.floor(((dur < 0 ? view.width : xOf(ts + dur)) - LABEL_W) / 2));
      for (let c = c0; c <= c1; c++) seen[c] = 1;
    }
    for (let c = 0; c < cols; c++) busy[c] += seen[c];
  }
  const n = row.summary.length, h = row.h - 6;
  let filled = 0;
  ctx.fillStyle = '#5c6bc0';
  for (let c = 0; c < cols; c++) {
    if (!busy[c]) continue;
    const bh = Math.max(2, (busy[c] / n) * h);
    ctx.fillRect(LABEL_W + c * 2, top + 3 + h - bh, 2, bh);
    filled++;
  }
  drawn.summaries.push({ key: row.key, tracks: n, columns: filled });
}

// A counter: a step chart with its y axis (min and max with the unit, a mid line) and, where the
// cursor is or a value was selected, the value there.
function drawCounterRow(row, top) {
  const entries = data.counters[row.track.id] || [];
  const h = COUNTER_H - 8, base = top + COUNTER_H - 4;
  let lo = 0, hi = 0;
  for (const e of entries) { lo = Math.min(lo, e[1]); hi = Math.max(hi, e[2]); }
  const range = hi - lo || 1;
  const yOf = (v) => base - ((v - lo) / range) * h;
  ctx.strokeStyle = '#eceff1';
  ctx.beginPath(); ctx.moveTo(LABEL_W, yOf((lo + hi) / 2)); ctx.lineTo(view.width, yOf((lo + hi) / 2)); ctx.stroke();
  ctx.strokeStyle = '#1565c0';
  ctx.fillStyle = 'rgba(21,101,192,0.18)';
  ctx.beginPath();
  let started = false, lastY = yOf(0);
  for (const [ts, mn, mx, last] of entries) {
    const x = Math.min(Math.max(xOf(ts), LABEL_W), view.width);
    if (!started) { ctx.moveTo(x, yOf(0)); started = true; } else ctx.lineTo(x, lastY);
    ctx.lineTo(x, yOf(mx)); ctx.lineTo(x, yOf(mn)); ctx.lineTo(x, yOf(last));
    lastY = yOf(last);
  }
  if (started) {
    ctx.lineTo(view.width, lastY);
    ctx.stroke();
    ctx.lineTo(view.width, yOf(0)); ctx.closePath(); ctx.fill();
  }
  ctx.fillStyle = '#0d47a1';
  ctx.font = '10px system-ui, sans-serif';
  ctx.textBaseline = 'top';
  ctx.fillText(fmtCounter(row.track, hi), LABEL_W + 4, top + 2);
  ctx.textBaseline = 'bottom';
  ctx.fillText(fmtCounter(row.track, lo), LABEL_W + 4, base + 2);
  const sel = selectedCounter && selectedCounter.track === row.track.id ? selectedCounter : null;
  if (sel) {
    const x = xOf(sel.ts);
    ctx.fillStyle = '#d50000';
    ctx.beginPath(); ctx.arc(x, yOf(sel.value), 3.5, 0, 7); ctx.fill();
  }
  drawn.counters.push({ track: row.track.id, name: row.label, unit: row.track.unit, delta: !!row.track.delta, points: entries.length, max: hi, min: lo, axis: [lo, hi], selected: sel ? sel.value : null });
}

// The value of counter `track` in force at time `t`, from what is on screen: {ts, value, prev}.
function counterAt(track, t) {
  let found = null, prev = null;
  for (const e of data.counters[track] || []) {
    if (e[0] > t) break;
    prev = found;
    found = e;
  }
  return found ? { ts: found[0], value: found[3], prev: prev ? prev[3] : null } : null;
}

// Above this many flows on screen, arrows would hide the slices: only the selected slice's show.
const MAX_ARROWS = 400;

function drawFlows() {
  ctx.lineWidth = 1.2;
  const sel = selected ? selected.slice[0] : null;
  const crowded = data.flows.length > MAX_ARROWS;
  const yAt = (track, depth) => {
    const p = rowOfTrack.get(track);
    return p && p.row.kind === 'slice' ? rowTop(p.row) + 2 + (depth + p.offset) * ROW_H + ROW_H / 2 : null;
  };
  for (const f of data.flows) {
    const [oid, otrack, ots, odur, odepth, iid, itrack, its, , idepth] = f;
    if (crowded && oid !== sel && iid !== sel) continue;
    const y1 = yAt(otrack, odepth), y2 = yAt(itrack, idepth);
    if (y1 === null || y2 === null) continue;
    const x1 = xOf(ots + Math.max(odur, 0)), x2 = xOf(its);
    if (Math.max(y1, y2) < RULER_H || Math.min(y1, y2) > view.height) continue;
    if (Math.max(x1, x2) < LABEL_W || Math.min(x1, x2) > view.width) continue;
    const mine = oid === sel || iid === sel;
    ctx.strokeStyle = ctx.fillStyle = mine ? '#d50000' : 'rgba(38,50,56,0.55)';
    const bend = Math.max(20, Math.abs(x2 - x1) / 2);
    ctx.beginPath(); ctx.moveTo(x1, y1); ctx.bezierCurveTo(x1 + bend, y1, x2 - bend, y2, x2, y2); ctx.stroke();
    ctx.beginPath(); ctx.moveTo(x2, y2); ctx.lineTo(x2 - 6, y2 - 3.5); ctx.lineTo(x2 - 6, y2 + 3.5); ctx.fill();
    drawn.flows.push({ out: oid, in: iid, x1, y1, x2, y2 });
  }
  ctx.lineWidth = 1;
}

const PIN_X = LABEL_W - 18; // the pin button of a label: from here to LABEL_W - 4

function drawLabel(row, top) {
  const inArea = area && area.keys.includes(row.key);
  ctx.fillStyle = inArea ? '#dbe7fb' : row.kind === 'header' ? '#eceff1' : '#f5f7f8';
  ctx.fillRect(0, top, LABEL_W, row.h);
  ctx.fillStyle = row.kind === 'header' ? '#263238' : '#37474f';
  ctx.font = row.kind === 'header' ? '600 12px system-ui, sans-serif' : '12px system-ui, sans-serif';
  ctx.textBaseline = 'middle';
  const x = 6 + row.indent * INDENT, mid = top + Math.min(row.h, HEADER_H) / 2;
  if (row.collapsible) { // a triangle: right when collapsed, down when expanded
    ctx.beginPath();
    if (row.collapsed) { ctx.moveTo(x, mid - 4); ctx.lineTo(x + 6, mid); ctx.lineTo(x, mid + 4); }
    else { ctx.moveTo(x - 1, mid - 3); ctx.lineTo(x + 7, mid - 3); ctx.lineTo(x + 3, mid + 3); }
    ctx.fill();
  }
  const tx = x + (row.collapsible ? 11 : 0);
  const text = fitText(row.label, PIN_X - tx - 4) || row.label.slice(0, 3);
  ctx.fillText(text, tx, mid);
  if (row.kind === 'counter' && row.track.unit) {
    ctx.fillStyle = '#78909c';
    ctx.font = '10px system-ui, sans-serif';
    ctx.fillText(row.track.unit, tx, top + 30);
  }
  if (row.kind !== 'header' || row.pinned) { // the pin: filled when pinned
    ctx.strokeStyle = ctx.fillStyle = row.pinned ? '#1a73e8' : '#b0bec5';
    ctx.beginPath(); ctx.arc(PIN_X + 7, mid - 1, 3.5, 0, 7);
    if (row.pinned) ctx.fill(); else ctx.stroke();
    ctx.fillRect(PIN_X + 6.5, mid + 2, 1, 5);
  }
  drawn.labels.push({ label: row.label, key: row.key, kind: row.kind, track: row.track ? row.track.id : null, y: top, h: row.h, pinned: row.pinned, collapsed: row.collapsed });
}

let drawQueued = false;
function draw() {
  if (drawQueued) return;
  drawQueued = true;
  requestAnimationFrame(() => { drawQueued = false; drawNow(); });
}

// The rows of one band (pinned or not) clipped to [y0, y1): lines, contents, area, labels.
function drawBand(band, y0, y1) {
  ctx.save();
  ctx.beginPath(); ctx.rect(LABEL_W, y0, view.width - LABEL_W, y1 - y0); ctx.clip();
  ctx.strokeStyle = '#eceff1';
  for (const row of band) {
    const top = rowTop(row);
    if (top + row.h < y0 || top > y1) continue;
    ctx.beginPath(); ctx.moveTo(LABEL_W, top + row.h - 0.5); ctx.lineTo(view.width, top + row.h - 0.5); ctx.stroke();
    if (row.kind === 'header' && !row.summary && !row.sched) { ctx.fillStyle = '#f5f7f8'; ctx.fillRect(LABEL_W, top, view.width - LABEL_W, row.h); }
    if (row.sched) drawProcessSchedRow(row, top);
    else if (row.summary) drawSummaryRow(row, top);
    else if (row.kind === 'slice') drawSliceRow(row, top);
    else if (row.kind === 'counter') drawCounterRow(row, top);
    else if (row.kind === 'sched') drawSchedRow(row, top);
    else if (row.kind === 'state') drawStateRow(row, top);
    if (area && area.keys.includes(row.key)) {
      const x0 = xOf(area.start), x1 = xOf(area.end);
      ctx.fillStyle = 'rgba(26,115,232,0.15)';
      ctx.fillRect(x0, top, x1 - x0, row.h);
    }
  }
  ctx.restore();
  ctx.save();
  ctx.beginPath(); ctx.rect(0, y0, LABEL_W, y1 - y0); ctx.clip();
  for (const row of band) {
    const top = rowTop(row);
    if (top + row.h >= y0 && top <= y1) drawLabel(row, top);
  }
  ctx.restore();
}

function drawNow() {
  const dpr = window.devicePixelRatio || 1;
  const rect = canvas.getBoundingClientRect();
  if (canvas.width !== Math.round(rect.width * dpr) || canvas.height !== Math.round(rect.height * dpr)) {
    canvas.width = Math.round(rect.width * dpr);
    canvas.height = Math.round(rect.height * dpr);
  }
  view.width = rect.width;
  view.height = rect.height;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, view.width, view.height);
  drawn.slices = []; drawn.counters = []; drawn.flows = []; drawn.labels = []; drawn.summaries = [];
  ctx.save();
  ctx.beginPath(); ctx.rect(LABEL_W, RULER_H, view.width - LABEL_W, view.height - RULER_H); ctx.clip();
  drawGrid();
  ctx.restore();
  drawBand(rows.filter((r) => !r.pinned), RULER_H + pinnedH, view.height);
  drawBand(rows.filter((r) => r.pinned), RULER_H, RULER_H + pinnedH);
  if (pinnedH) { ctx.fillStyle = '#90a4ae'; ctx.fillRect(0, RULER_H + pinnedH - 1, view.width, 2); }
  ctx.save();
  ctx.beginPath(); ctx.rect(LABEL_W, RULER_H, view.width - LABEL_W, view.height - RULER_H); ctx.clip();
  drawFlows();
  drawWakeup();
  ctx.fillStyle = 'rgba(106,27,154,0.6)';
  for (const t of flags) ctx.fillRect(Math.round(xOf(t)), RULER_H, 1, view.height);
  if (measure) {
    ctx.fillStyle = 'rgba(25,118,210,0.10)';
    ctx.fillRect(xOf(measure.start), RULER_H, xOf(measure.end) - xOf(measure.start), view.height);
  }
  ctx.restore();
  drawRuler();
  drawMinimap();
  $('range').textContent = `${fmtDur(view.start - view.traceStart)} \u2013 ${fmtDur(view.end - view.traceStart)}`;
  urlSave();
}

