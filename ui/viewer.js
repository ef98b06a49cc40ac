// trak's timeline viewer: lays out process, thread and other tracks in Perfetto's order, asks
// the backend (backend.js) for what is on screen at the screen's resolution, draws slices,
// instants, counters and flows on one canvas, and handles zoom, pan, selection, search and SQL.
// window.trakViewer.state() describes what is drawn (the browser tests read it).
'use strict';

const LABEL_W = 230, RULER_H = 24, ROW_H = 18, HEADER_H = 22, COUNTER_H = 46, INDENT = 12;

const $ = (id) => document.getElementById(id);
const canvas = $('timeline');
const ctx = canvas.getContext('2d');

const backend = window.TRAK_DATA ? new EmbeddedBackend(window.TRAK_DATA) : new ServerBackend();
const view = { start: 0, end: 1, traceStart: 0, traceEnd: 1, scrollY: 0, width: 0, height: 0 };
let rows = [];                 // laid-out rows: {kind, label, indent, y, h, track?}
const rowOfTrack = new Map();  // track id -> row
const data = { slices: {}, counters: {}, flows: [] };
const drawn = { slices: [], counters: [], flows: [], labels: [] };
let selected = null;           // details answer of the selected slice
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

// ---- layout: Perfetto's ordering ---------------------------------------------------------

function byOrdering(ordering) {
  if (ordering === 'explicit') return (a, b) => (a.rank ?? 0) - (b.rank ?? 0) || a.id - b.id;
  if (ordering === 'lexicographic') return (a, b) => (a.name || '').localeCompare(b.name || '') || a.id - b.id;
  if (ordering === 'chronological') return (a, b) => (a.firstTs ?? Infinity) - (b.firstTs ?? Infinity) || a.id - b.id;
  return (a, b) => a.id - b.id;
}

function layout(t) {
  view.traceStart = t.start;
  view.traceEnd = t.end;
  const procs = new Map(t.processes.map(([upid, pid, name, sort]) => [upid, { upid, pid, name, sort, tracks: [], threads: [] }]));
  const threads = new Map(t.threads.map(([utid, tid, name, upid, sort, main]) => [utid, { utid, tid, name, upid, sort, main, tracks: [] }]));
  const tracks = new Map();
  for (const r of t.tracks) {
    tracks.set(r[0], {
      id: r[0], name: r[1], type: r[2], utid: r[3], upid: r[4], parent: r[5], ordering: r[6],
      rank: r[7], unit: r[8], maxDepth: r[9] ?? 0, firstTs: r[10], isCounter: !!r[11],
      metric: r[12], count: r[13], children: [],
    });
  }
  const global = [], annotations = [];
  for (const tr of tracks.values()) {
    // A parent nests its children, except the unnamed track of a process or thread: that one
    // only says where the child belongs, which the process and thread groups show already.
    const parent = tr.parent !== null ? tracks.get(tr.parent) : null;
    const scopeOnly = parent && !parent.name && (parent.type === 'process_track' || parent.type === 'thread_track');
    if (parent && !scopeOnly) { parent.children.push(tr); continue; }
    if (tr.utid !== null && threads.has(tr.utid)) threads.get(tr.utid).tracks.push(tr);
    else if (tr.upid !== null && procs.has(tr.upid)) procs.get(tr.upid).tracks.push(tr);
    else if (tr.metric) annotations.push(tr);
    else global.push(tr);
  }
  for (const th of threads.values()) {
    const p = th.upid !== null ? procs.get(th.upid) : null;
    if (p) p.threads.push(th);
  }
  // A track is shown if it has data, a name (a descriptor made it on purpose), or a child shown.
  const hasData = (tr) => tr.count > 0 || !!tr.name || tr.children.some(hasData);

  rows = [];
  rowOfTrack.clear();
  let y = 0;
  const push = (row) => { row.y = y; y += row.h; rows.push(row); if (row.track) rowOfTrack.set(row.track.id, row); };
  const header = (label, indent) => push({ kind: 'header', label, indent, h: HEADER_H });
  const trackLabel = (tr, fallback) => tr.name || fallback || tr.type;
  const emit = (tr, indent, fallback) => {
    if (!hasData(tr)) return;
    if (tr.isCounter) push({ kind: 'counter', label: trackLabel(tr, fallback), indent, h: COUNTER_H, track: tr });
    else if (tr.count > 0) push({ kind: 'slice', label: trackLabel(tr, fallback), indent, h: (tr.maxDepth + 1) * ROW_H + 4, track: tr });
    else header(trackLabel(tr, fallback), indent);
    tr.children.sort(byOrdering(tr.ordering));
    for (const c of tr.children) emit(c, indent + 1);
  };
  const bySort = (a, b) => (a.sort ?? Infinity) - (b.sort ?? Infinity);

  for (const tr of global.sort(byOrdering(null))) emit(tr, 0);
  if (annotations.length) {
    header('Annotations', 0);
    for (const tr of annotations.sort(byOrdering(null))) emit(tr, 1, `annotations (${tr.metric})`);
  }
  const procList = [...procs.values()].filter((p) => p.tracks.some(hasData) || p.threads.some((th) => th.tracks.some(hasData)));
  procList.sort((a, b) => bySort(a, b) || (a.pid ?? 0) - (b.pid ?? 0));
  for (const p of procList) {
    header(`${p.name || 'process'} ${p.pid ?? ''}`.trim(), 0);
    // Process-scoped tracks (async slices, counters), then annotations scoped to the process.
    p.tracks.sort((a, b) => !!a.metric - !!b.metric || a.id - b.id);
    for (const tr of p.tracks) emit(tr, 1);
    p.threads.sort((a, b) => bySort(a, b) || b.main - a.main || (a.tid ?? 0) - (b.tid ?? 0));
    for (const th of p.threads) {
      const name = `${th.name || 'thread'} ${th.tid ?? ''}`.trim();
      // The thread's own slices first (its header row), then its other tracks.
      th.tracks.sort((a, b) => (a.type !== 'thread_track') - (b.type !== 'thread_track') || !!a.metric - !!b.metric || a.id - b.id);
      th.tracks.forEach((tr, i) => emit(tr, 1 + (i > 0), i === 0 ? name : `${name} ${tr.type}`));
    }
  }
  // Threads with no process.
  for (const th of threads.values()) {
    if (th.upid !== null && procs.has(th.upid)) continue;
    th.tracks.forEach((tr, i) => emit(tr, i > 0 ? 1 : 0, `${th.name || 'thread'} ${th.tid ?? ''}`.trim()));
  }
  view.contentHeight = y;
}

// ---- coordinates ---------------------------------------------------------------------------

const plotW = () => Math.max(1, view.width - LABEL_W);
const xOf = (ts) => LABEL_W + ((ts - view.start) / (view.end - view.start)) * plotW();
const tsOf = (x) => view.start + ((x - LABEL_W) / plotW()) * (view.end - view.start);
const rowTop = (row) => RULER_H + row.y - view.scrollY;

function setRange(start, end) {
  const full = view.traceEnd - view.traceStart;
  let span = Math.min(Math.max(end - start, 20), full * 1.5 + 1000);
  const mid = (start + end) / 2;
  start = mid - span / 2;
  const lo = view.traceStart - full * 0.25, hi = view.traceEnd + full * 0.25;
  if (start < lo) start = lo;
  if (start + span > hi) start = Math.max(lo, hi - span);
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
  const max = Math.max(0, view.contentHeight - (view.height - RULER_H) + 20);
  view.scrollY = Math.min(max, Math.max(0, view.scrollY + dy));
  requestData();
  draw();
}

// ---- data: only what is on screen, at the screen's resolution -------------------------------

function visibleRows() {
  const top = view.scrollY - 100, bottom = view.scrollY + view.height + 100;
  return rows.filter((r) => r.track && r.y + r.h >= top && r.y <= bottom);
}

// What the screen needs: the range at its resolution and the tracks in (or near) view.
function wanted() {
  const vis = visibleRows();
  const r = { start: Math.floor(view.start), end: Math.ceil(view.end) };
  r.px = Math.max(1, Math.floor((r.end - r.start) / plotW()));
  const sliceIds = vis.filter((x) => x.kind === 'slice').map((x) => x.track.id);
  const counterIds = vis.filter((x) => x.kind === 'counter').map((x) => x.track.id);
  return { r, sliceIds, counterIds, key: `${r.start}:${r.end}:${r.px}:${sliceIds}:${counterIds}` };
}

async function requestData() {
  if (net.inflight) { net.again = true; return; }
  const { r, sliceIds, counterIds, key } = wanted();
  if (key === net.key) return;
  net.inflight++;
  try {
    const [s, c, f] = await Promise.all([
      sliceIds.length ? backend.slices(sliceIds, r) : {},
      counterIds.length ? backend.counters(counterIds, r) : {},
      backend.flows(r),
    ]);
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
  ctx.fillStyle = '#eceff1';
  ctx.fillRect(0, 0, LABEL_W, RULER_H);
  ctx.fillStyle = '#37474f';
  ctx.fillText(`span ${fmtDur(span)}`, 8, RULER_H / 2);
}

function drawSliceRow(row, top) {
  const entries = data.slices[row.track.id] || [];
  const left = LABEL_W, right = view.width;
  ctx.font = '11px system-ui, sans-serif';
  ctx.textBaseline = 'middle';
  for (const [depth, ts, dur, id, name, count] of entries) {
    const y = top + 2 + depth * ROW_H, h = ROW_H - 2;
    if (y + h < RULER_H || y > view.height) continue;
    const x0 = xOf(ts);
    if (dur === 0) { // an instant: a chevron at its time
      if (x0 < left - 5 || x0 > right + 5) continue;
      ctx.fillStyle = colourOf(name);
      ctx.beginPath(); ctx.moveTo(x0, y); ctx.lineTo(x0 + 5, y + h / 2); ctx.lineTo(x0, y + h); ctx.lineTo(x0 - 5, y + h / 2); ctx.fill();
      drawn.slices.push({ id, name, x: x0 - 5, y, w: 10, h, track: row.track.id, instant: true, count, label: '' });
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
    drawn.slices.push({ id, name, x: a, y, w, h, track: row.track.id, count, label, alert: alert ? alert[0] : null });
  }
}

function drawCounterRow(row, top) {
  const entries = data.counters[row.track.id] || [];
  const h = COUNTER_H - 8, base = top + COUNTER_H - 4;
  let lo = 0, hi = 0;
  for (const e of entries) { lo = Math.min(lo, e[1]); hi = Math.max(hi, e[2]); }
  const range = hi - lo || 1;
  const yOf = (v) => base - ((v - lo) / range) * h;
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
  const unit = row.track.unit ? ` ${row.track.unit}` : '';
  ctx.fillStyle = '#0d47a1';
  ctx.font = '10px system-ui, sans-serif';
  ctx.textBaseline = 'top';
  ctx.fillText(`${fmtValue(hi)}${unit}`, LABEL_W + 4, top + 2);
  drawn.counters.push({ track: row.track.id, name: row.label, unit: row.track.unit, points: entries.length, max: hi, min: lo });
}

// Above this many flows on screen, arrows would hide the slices: only the selected slice's show.
const MAX_ARROWS = 400;

function drawFlows() {
  ctx.lineWidth = 1.2;
  const sel = selected ? selected.slice[0] : null;
  const crowded = data.flows.length > MAX_ARROWS;
  for (const f of data.flows) {
    const [oid, otrack, ots, odur, odepth, iid, itrack, its, , idepth] = f;
    if (crowded && oid !== sel && iid !== sel) continue;
    const ro = rowOfTrack.get(otrack), ri = rowOfTrack.get(itrack);
    if (!ro || !ri) continue;
    const x1 = xOf(ots + Math.max(odur, 0)), y1 = rowTop(ro) + 2 + odepth * ROW_H + ROW_H / 2;
    const x2 = xOf(its), y2 = rowTop(ri) + 2 + idepth * ROW_H + ROW_H / 2;
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

function drawLabels() {
  ctx.font = '12px system-ui, sans-serif';
  ctx.textBaseline = 'middle';
  for (const row of rows) {
    const top = rowTop(row);
    if (top + row.h < RULER_H || top > view.height) continue;
    ctx.fillStyle = row.kind === 'header' ? '#eceff1' : '#f5f7f8';
    ctx.fillRect(0, top, LABEL_W, row.h);
    ctx.fillStyle = row.kind === 'header' ? '#263238' : '#37474f';
    ctx.font = row.kind === 'header' ? '600 12px system-ui, sans-serif' : '12px system-ui, sans-serif';
    const text = fitText(row.label, LABEL_W - 10 - row.indent * INDENT) || row.label.slice(0, 3);
    ctx.fillText(text, 6 + row.indent * INDENT, top + Math.min(row.h, HEADER_H) / 2);
    if (row.kind === 'counter' && row.track.unit) {
      ctx.fillStyle = '#78909c';
      ctx.font = '10px system-ui, sans-serif';
      ctx.fillText(row.track.unit, 6 + row.indent * INDENT, top + 30);
    }
    drawn.labels.push({ label: row.label, kind: row.kind, track: row.track ? row.track.id : null, y: top, h: row.h });
  }
  ctx.strokeStyle = '#cfd8dc';
  ctx.beginPath(); ctx.moveTo(LABEL_W + 0.5, RULER_H); ctx.lineTo(LABEL_W + 0.5, view.height); ctx.stroke();
}

let drawQueued = false;
function draw() {
  if (drawQueued) return;
  drawQueued = true;
  requestAnimationFrame(() => { drawQueued = false; drawNow(); });
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
  drawn.slices = []; drawn.counters = []; drawn.flows = []; drawn.labels = [];
  ctx.save();
  ctx.beginPath(); ctx.rect(LABEL_W, RULER_H, view.width - LABEL_W, view.height - RULER_H); ctx.clip();
  drawGrid();
  ctx.strokeStyle = '#eceff1';
  for (const row of rows) {
    const top = rowTop(row);
    if (top + row.h < RULER_H || top > view.height) continue;
    ctx.beginPath(); ctx.moveTo(LABEL_W, top + row.h - 0.5); ctx.lineTo(view.width, top + row.h - 0.5); ctx.stroke();
  }
  for (const row of rows) {
    const top = rowTop(row);
    if (top + row.h < RULER_H || top > view.height) continue;
    if (row.kind === 'header') { ctx.fillStyle = '#f5f7f8'; ctx.fillRect(LABEL_W, top, view.width - LABEL_W, row.h); }
    if (row.kind === 'slice') drawSliceRow(row, top);
    else if (row.kind === 'counter') drawCounterRow(row, top);
  }
  drawFlows();
  ctx.restore();
  ctx.save();
  ctx.beginPath(); ctx.rect(0, RULER_H, LABEL_W, view.height - RULER_H); ctx.clip();
  drawLabels();
  ctx.restore();
  drawRuler();
  $('range').textContent = `${fmtDur(view.start - view.traceStart)} \u2013 ${fmtDur(view.end - view.traceStart)}`;
}

// ---- selection and details ---------------------------------------------------------------

function sliceLink(id, name) { return `<a class="slice" data-id="${id}">${esc(name ?? id)}</a>`; }

function renderDetails(d) {
  const [id, ts, dur, name, category, depth, track, trackName, , , tid, thread, pid, process, threadDur] = d.slice;
  const kv = [
    ['Name', esc(name)], ['Category', esc(category)],
    ['Start', `${esc(fmtDur(ts - view.traceStart))} <span class="hint">(ts ${ts})</span>`],
    ['Duration', dur < 0 ? 'did not end' : `${esc(fmtDur(dur))} <span class="hint">(${dur} ns)</span>`],
    ['Thread duration', threadDur !== null && threadDur !== undefined ? esc(fmtDur(threadDur)) : null],
    ['Track', `${esc(trackName ?? thread ?? '')} <span class="hint">#${track}</span>`],
    ['Thread', thread !== null && thread !== undefined ? `${esc(thread)} ${tid}` : null],
    ['Process', process !== null && process !== undefined ? `${esc(process)} ${pid}` : null],
    ['Depth', depth], ['Slice id', id],
  ].filter(([, v]) => v !== null && v !== undefined);
  let html = `<h2>${esc(name)}</h2>`;
  const alert = alerts.get(id);
  if (alert) html += `<div class="alert ${esc(alert[0])}" id="alert">${esc(alert[0])}: ${esc(alert[1])}</div>`;
  if (d.description) {
    html += `<div class="desc" id="description">${esc(d.description)}${d.doc_link ? ` <a href="${esc(d.doc_link)}" target="_blank" rel="noopener">docs</a>` : ''}</div>`;
  }
  html += `<table class="kv">${kv.map(([k, v]) => `<tr><td>${k}</td><td>${v}</td></tr>`).join('')}</table>`;
  if (d.args.length) {
    html += `<h2>Args</h2><table class="kv" id="args">${d.args.map(([k, v]) => `<tr><td>${esc(k)}</td><td>${esc(v)}</td></tr>`).join('')}</table>`;
  }
  if (d.ancestors.length) {
    html += `<h2>Ancestors</h2><div id="ancestors">${d.ancestors.map((a) => sliceLink(a[0], a[1])).join(' &larr; ')}</div>`;
  }
  for (const [key, title] of [['flows_out', 'Flows out'], ['flows_in', 'Flows in']]) {
    if (!d[key].length) continue;
    html += `<h2>${title}</h2><div id="${key}">${d[key].map((f) => `${sliceLink(f[1], f[2])} <span class="hint">at ${esc(fmtDur(f[3] - view.traceStart))}</span>`).join('<br>')}</div>`;
  }
  if (d.partial) html += '<p class="hint">Args and flows of this slice are not in this report (only the longest slices\' are); `trak ui` shows them.</p>';
  $('details').innerHTML = html;
}

async function selectSlice(id, reveal) {
  try {
    const d = await backend.details(id);
    selected = d;
    renderDetails(d);
    if (reveal) revealSlice(d.slice[1], d.slice[2], d.slice[6], d.slice[5]);
    draw();
  } catch (e) {
    $('details').innerHTML = `<p class="error">${esc(e.message || e)}</p>`;
  }
}

// Brings a slice on screen: centred at the current zoom, or zoomed out to fit it.
function revealSlice(ts, dur, track, depth) {
  const span = view.end - view.start, d = Math.max(dur, 0);
  const inView = ts >= view.start && ts + d <= view.end;
  if (!inView) {
    const want = d > span * 0.8 ? d * 1.5 : span;
    setRange(ts + d / 2 - want / 2, ts + d / 2 + want / 2);
  }
  const row = rowOfTrack.get(track);
  if (row) {
    const y = row.y + depth * ROW_H;
    if (y < view.scrollY || y > view.scrollY + view.height - RULER_H - 40) scrollBy(y - view.scrollY - (view.height - RULER_H) / 3);
  }
}

function hit(x, y) {
  for (let i = drawn.slices.length - 1; i >= 0; i--) {
    const s = drawn.slices[i];
    if (x >= s.x - 1 && x <= s.x + s.w + 1 && y >= s.y && y <= s.y + s.h) return s;
  }
  return null;
}

// ---- search ------------------------------------------------------------------------------

async function runSearch(step) {
  const text = $('search').value.trim();
  if (!text) return;
  if (text !== search.text) {
    search.text = text;
    search.index = -1;
    $('search-status').textContent = 'searching\u2026';
    try {
      const r = await backend.search(text);
      search.rows = r.rows;
      search.truncated = r.truncated;
    } catch (e) {
      search.rows = [];
      $('search-status').textContent = String(e.message || e);
      return;
    }
  }
  if (!search.rows.length) { $('search-status').textContent = 'no match'; return; }
  search.index = (search.index + step + search.rows.length) % search.rows.length;
  if (search.index < 0) search.index = 0;
  $('search-status').textContent = `${search.index + 1} / ${search.rows.length}${search.truncated ? '+' : ''}`;
  const [id] = search.rows[search.index];
  await selectSlice(id, true);
}

// ---- SQL (trak ui only) ------------------------------------------------------------------

async function runSql() {
  const sql = $('sql-text').value;
  const status = $('sql-status');
  status.className = '';
  status.textContent = 'running\u2026';
  const t0 = performance.now();
  let r;
  try {
    r = await backend.query(sql);
  } catch (e) {
    status.className = 'error';
    status.textContent = String(e.message || e);
    return;
  }
  const idCol = ['slice_id', 'id'].map((n) => r.columns.indexOf(n)).find((i) => i >= 0) ?? -1;
  highlight = new Set(idCol >= 0 ? r.rows.map((row) => row[idCol]).filter((v) => typeof v === 'number') : []);
  status.textContent = `${r.rows.length}${r.truncated ? '+' : ''} rows in ${Math.round(performance.now() - t0)} ms` +
    (highlight.size ? ` \u00b7 ${highlight.size} slices highlighted (column ${r.columns[idCol]})` : '');
  const shown = r.rows.slice(0, 500);
  $('sql-result').innerHTML = `<table class="rows"><tr>${r.columns.map((c) => `<th>${esc(c)}</th>`).join('')}</tr>` +
    shown.map((row) => `<tr${idCol >= 0 ? ` class="link" data-id="${row[idCol]}"` : ''}>${row.map((v) => `<td>${esc(v === null ? 'NULL' : v)}</td>`).join('')}</tr>`).join('') +
    '</table>';
  draw();
}

// ---- input -------------------------------------------------------------------------------

function showNotice(text) {
  const n = $('notice');
  n.textContent = text;
  n.hidden = !text;
}

function bindInput() {
  let drag = null;
  canvas.tabIndex = 0;
  canvas.addEventListener('mousedown', (e) => {
    const r = canvas.getBoundingClientRect();
    drag = { x: e.clientX, y: e.clientY, start: view.start, end: view.end, scroll: view.scrollY, moved: false, rx: e.clientX - r.left, ry: e.clientY - r.top };
    canvas.focus();
  });
  window.addEventListener('mousemove', (e) => {
    const r = canvas.getBoundingClientRect();
    mouseX = e.clientX - r.left;
    if (!drag) return;
    const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
    if (!drag.moved) return;
    const dt = (dx / plotW()) * (drag.end - drag.start);
    setRange(drag.start - dt, drag.end - dt);
    view.scrollY = drag.scroll;
    scrollBy(-dy);
  });
  window.addEventListener('mouseup', () => {
    if (drag && !drag.moved) {
      const s = hit(drag.rx, drag.ry);
      if (s) selectSlice(s.id, false);
    }
    drag = null;
  });
  canvas.addEventListener('wheel', (e) => {
    e.preventDefault();
    const r = canvas.getBoundingClientRect();
    if (e.ctrlKey || e.metaKey) zoom(Math.exp(e.deltaY * 0.002), e.clientX - r.left);
    else if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) pan((e.deltaX || e.deltaY) / plotW());
    else scrollBy(e.deltaY);
  }, { passive: false });
  document.addEventListener('keydown', (e) => {
    if (e.target.closest && e.target.closest('input, textarea')) return;
    const at = mouseX !== null && mouseX > LABEL_W ? mouseX : undefined;
    const k = e.key.toLowerCase();
    if (k === 'w') zoom(0.8, at);
    else if (k === 's') zoom(1.25, at);
    else if (k === 'a') pan(-0.1);
    else if (k === 'd') pan(0.1);
    else if (e.key === 'Escape') { selected = null; draw(); }
    else return;
    e.preventDefault();
  });
  window.addEventListener('resize', () => { draw(); requestData(); });
  $('search').addEventListener('keydown', (e) => { if (e.key === 'Enter') runSearch(e.shiftKey ? -1 : 1); });
  $('search-next').addEventListener('click', () => runSearch(1));
  $('search-prev').addEventListener('click', () => runSearch(-1));
  const follow = (e) => {
    const el = e.target.closest('[data-id]');
    if (el) selectSlice(Number(el.dataset.id), true);
  };
  $('details').addEventListener('click', follow);
  $('sql-result').addEventListener('click', follow);
  $('sql-run').addEventListener('click', runSql);
  $('sql-text').addEventListener('keydown', (e) => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); runSql(); } });
}

// ---- start -------------------------------------------------------------------------------

window.trakViewer = {
  // What is on screen, for tests and for debugging from the console.
  state: () => ({
    mode: backend.mode, start: view.start, end: view.end, traceStart: view.traceStart, traceEnd: view.traceEnd,
    rows: rows.map((r) => ({ kind: r.kind, label: r.label, track: r.track ? r.track.id : null, metric: r.track ? r.track.metric : null, y: r.y, h: r.h })),
    slices: drawn.slices.slice(), counters: drawn.counters.slice(), flows: drawn.flows.slice(), labels: drawn.labels.slice(),
    selected: selected ? selected.slice[0] : null, highlighted: [...highlight], answers: net.answers,
    idle: net.inflight === 0 && !drawQueued, error: net.error,
    fresh: net.key === wanted().key, // the data drawn is what the current view needs
  }),
  zoom, pan, setRange, selectSlice,
  // Scrolls the track's row to the top of the timeline.
  scrollToTrack: (id) => { const row = rowOfTrack.get(id); if (row) scrollBy(row.y - view.scrollY - HEADER_H); },
};

async function start() {
  bindInput();
  if (backend.mode === 'ui') $('sql').hidden = false;
  if (window.TRAK_DATA) {
    $('title').textContent = window.TRAK_DATA.title;
    document.title = `${window.TRAK_DATA.title} \u2014 trak`;
    if (window.TRAK_DATA.summary) showNotice(`Summarised: ${window.TRAK_DATA.summary}`);
  }
  try {
    const [t, al] = await Promise.all([backend.tracks(), backend.alerts()]);
    for (const [id, type, message] of al) alerts.set(id, [type, message]);
    layout(t);
    const pad = (t.end - t.start) * 0.02;
    view.start = t.start - pad;
    view.end = t.end + pad;
    drawNow();
    await requestData();
  } catch (e) {
    showNotice(`Could not load the trace: ${e.message || e}`);
  }
}
start();
