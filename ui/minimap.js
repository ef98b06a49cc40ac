// The minimap: a strip above the tracks showing how many events begin along the whole trace
// (the backend's density, one bucket per pixel column of the timeline's plot, bars by the
// square root of the count so that quiet stretches still show), with the window the timeline
// shows drawn on it. A click centres the view on the time clicked, a drag moves the view with
// the cursor; the view keeps its span.
'use strict';

const mini = { canvas: $('minimap'), counts: null, px: 0, key: '', loading: '', max: 0, error: null, window: null };
const miniCtx = mini.canvas.getContext('2d');

// The minimap's x of time t and back: the timeline's columns (labels LABEL_W wide), the whole
// trace across its plot.
const miniSpan = () => Math.max(1, view.traceEnd - view.traceStart);
const miniX = (t) => LABEL_W + ((t - view.traceStart) / miniSpan()) * plotW();
const miniT = (x) => view.traceStart + ((x - LABEL_W) / plotW()) * miniSpan();

// The whole trace at one bucket per plot column (or finer for a short trace).
function miniRange() {
  const start = Math.floor(view.traceStart), end = Math.ceil(view.traceEnd);
  return { start, end, px: Math.max(1, Math.ceil((end - start + 1) / plotW())) };
}

// Asks for the density when the plot's width changed what it needs (once per width, answered
// or not); draws once it is there.
async function miniLoad() {
  const r = miniRange(), key = `${r.start}:${r.end}:${r.px}`;
  if (key === mini.key || key === mini.loading) return;
  mini.loading = key;
  try {
    const counts = await backend.density(r);
    if (mini.loading !== key) return; // a newer width asked meanwhile
    Object.assign(mini, { counts, px: r.px, key, max: Math.max(0, ...counts), error: null });
  } catch (e) {
    Object.assign(mini, { counts: null, px: 0, key, max: 0, error: String(e.message || e) });
  } finally {
    if (mini.loading === key) mini.loading = '';
  }
  drawMinimap();
}

function drawMinimap() {
  const c = mini.canvas, dpr = window.devicePixelRatio || 1;
  const rect = c.getBoundingClientRect(), w = rect.width, h = rect.height;
  if (c.width !== Math.round(w * dpr) || c.height !== Math.round(h * dpr)) {
    c.width = Math.round(w * dpr);
    c.height = Math.round(h * dpr);
  }
  const g = miniCtx;
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.fillStyle = '#f5f7f8';
  g.fillRect(0, 0, w, h);
  g.fillStyle = '#37474f';
  g.font = '12px system-ui, sans-serif';
  g.textBaseline = 'middle';
  g.fillText(mini.error ? `Overview: ${mini.error}` : 'Overview', 8, h / 2);
  if (view.width) miniLoad();
  if (mini.counts && mini.max > 0) { // a bar per bucket, from the bottom, on whole pixels
    g.fillStyle = '#5c6bc0';
    const bw = (mini.px / miniSpan()) * plotW();
    mini.counts.forEach((n, j) => {
      if (!n) return;
      const bh = Math.max(1, Math.sqrt(n / mini.max) * (h - 6));
      g.fillRect(Math.floor(miniX(view.traceStart + j * mini.px)), h - 2 - bh, Math.max(Math.ceil(bw), 1), bh);
    });
  }
  // The window: what is outside it dimmed, its edges drawn.
  const x0 = Math.max(LABEL_W, miniX(view.start)), x1 = Math.max(x0 + 2, Math.min(w, miniX(view.end)));
  g.fillStyle = 'rgba(38,50,56,0.28)';
  g.fillRect(LABEL_W, 0, x0 - LABEL_W, h);
  g.fillRect(x1, 0, w - x1, h);
  g.strokeStyle = '#1a73e8';
  g.lineWidth = 2;
  g.strokeRect(x0, 1, x1 - x0, h - 2);
  g.lineWidth = 1;
  g.fillStyle = '#90a4ae';
  g.fillRect(0, h - 1, w, 1);
  mini.window = [x0, x1];
}

// What the minimap holds and draws, for the tests: its buckets' counts, their width in ns, the
// largest, their total, how many are not empty, and the window's x range (the strip's own
// coordinates).
function miniState() {
  const counts = mini.counts || [];
  return { buckets: counts.length, counts: counts.slice(), px: mini.px, max: mini.max, error: mini.error,
    total: counts.reduce((a, b) => a + b, 0), nonzero: counts.filter((n) => n > 0).length,
    window: mini.window ? mini.window.slice() : null, loaded: !!mini.counts && !mini.loading };
}

// A press on the strip: outside the window it centres the view there; a drag then moves the
// view with the cursor, by the time under it.
function bindMinimap() {
  let grab = null; // the time under the cursor minus the view's start
  const tAt = (e) => miniT(e.clientX - mini.canvas.getBoundingClientRect().left);
  mini.canvas.addEventListener('mousedown', (e) => {
    const t = tAt(e), span = view.end - view.start;
    if (e.clientX - mini.canvas.getBoundingClientRect().left < LABEL_W) return;
    if (t < view.start || t > view.end) setRange(t - span / 2, t + span / 2);
    grab = t - view.start;
    e.preventDefault();
  });
  window.addEventListener('mousemove', (e) => {
    if (grab === null) return;
    const span = view.end - view.start, start = tAt(e) - grab;
    setRange(start, start + span);
  });
  window.addEventListener('mouseup', () => { grab = null; });
}
