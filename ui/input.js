// Input of trak's viewer and its start: drag selects an area (Shift+drag or the middle button
// pans), a click selects a slice, a thread state, a CPU slice or a counter value, a click on the ruler sets or clears a
// flag, a click on a label collapses or pins; keys W/S/A/D zoom and pan, M measures, F
// focuses, Escape clears, Ctrl+F and / focus the search; double-click zooms; the splitters
// resize the panels. window.trakViewer is the tests' handle.
'use strict';

function showNotice(text) {
  const n = $('notice');
  n.textContent = text;
  n.hidden = !text;
}

const canvasXY = (e) => { const r = canvas.getBoundingClientRect(); return [e.clientX - r.left, e.clientY - r.top]; };
const rowAt = (y) => {
  const band = y < RULER_H + pinnedH ? rows.filter((r) => r.pinned) : rows.filter((r) => !r.pinned);
  return band.find((r) => { const t = rowTop(r); return y >= t && y < t + r.h; }) || null;
};

// The tooltip: a slice's or instant's name, duration and thread (its row), or a counter's value.
function tooltipAt(x, y) {
  const tip = $('tooltip');
  let html = '';
  if (x > LABEL_W && y > RULER_H) {
    const s = hit(x, y);
    const row = rowAt(y);
    if (s && s.kind) {
      html = systemTooltip(s);
    } else if (s) {
      const p = rowOfTrack.get(s.track);
      html = `<b>${esc(s.name)}</b><br>${s.dur < 0 ? 'did not end' : s.instant ? 'instant' : esc(fmtDur(s.dur))}` +
        `${s.count > 1 ? ` <span class="hint">(${s.count} slices here)</span>` : ''}<br>${esc(p ? p.row.label : '')}`;
    } else if (row && row.kind === 'counter') {
      const at = counterAt(row.track.id, tsOf(x));
      if (at) html = `<b>${esc(row.label)}</b><br>${esc(fmtCounter(row.track, at.value))} <span class="hint">at ${esc(fmtDur(at.ts - view.traceStart))}</span>`;
    }
  }
  tip.innerHTML = html;
  tip.hidden = !html;
  if (html) {
    const r = canvas.getBoundingClientRect();
    tip.style.left = `${Math.min(r.left + x + 14, window.innerWidth - tip.offsetWidth - 4)}px`;
    tip.style.top = `${r.top + y + 16}px`;
  }
}

// A click (no drag) at (x, y): ruler flag, label (collapse or pin), slice or counter value.
function clickAt(x, y) {
  if (y < RULER_H) {
    if (x <= LABEL_W) return;
    const t = tsOf(x), near = flags.findIndex((f) => Math.abs(xOf(f) - x) < 5);
    if (near >= 0) flags.splice(near, 1); else flags.push(Math.round(t));
    draw();
    return;
  }
  const row = rowAt(y);
  if (x < LABEL_W) {
    if (!row) return;
    if (x >= PIN_X && row.kind !== 'header') treePin(row.key);
    else if (x >= PIN_X && row.pinned) treePin(row.key);
    else if (row.collapsible) treeToggle(row.key);
    else return;
    relayout();
    return;
  }
  const s = hit(x, y);
  if (s && s.kind) selectSystem(s);
  else if (s) selectSlice(s.id, false);
  else if (row && row.kind === 'counter') selectCounter(row.track.id, tsOf(x));
}

// Zooms to [start, end] with a margin of a tenth each side.
function focusRange(start, end) {
  const pad = Math.max((end - start) * 0.1, 10);
  setRange(start - pad, end + pad);
}

function bindInput() {
  let drag = null;
  canvas.tabIndex = 0;
  canvas.addEventListener('mousedown', (e) => {
    const [x, y] = canvasXY(e);
    const pan = e.shiftKey || e.button === 1 || x < LABEL_W || y < RULER_H;
    drag = { x: e.clientX, y: e.clientY, start: view.start, end: view.end, scroll: view.scrollY, moved: false, rx: x, ry: y, pan };
    canvas.focus();
    e.preventDefault();
  });
  window.addEventListener('mousemove', (e) => {
    const [x, y] = canvasXY(e);
    mouseX = x;
    if (!drag) { if (e.target === canvas) tooltipAt(x, y); else $('tooltip').hidden = true; return; }
    const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
    if (!drag.moved) return;
    $('tooltip').hidden = true;
    if (drag.pan) {
      const dt = (dx / plotW()) * (drag.end - drag.start);
      setRange(drag.start - dt, drag.end - dt);
      view.scrollY = drag.scroll;
      scrollBy(-dy);
      return;
    }
    // Area selection: the time range dragged over, the rows between the two y positions.
    const t0 = tsOf(Math.max(LABEL_W, Math.min(drag.rx, x))), t1 = tsOf(Math.max(LABEL_W, Math.max(drag.rx, x)));
    const picked = areaRows(Math.min(drag.ry, y), Math.max(drag.ry, y));
    area = { start: t0, end: t1, tracks: [], keys: picked.map((r) => r.key), agg: null, dragging: true };
    drag.area = { t0, t1, picked };
    draw();
  });
  window.addEventListener('mouseup', () => {
    if (drag && !drag.moved) clickAt(drag.rx, drag.ry);
    else if (drag && drag.area) selectArea(drag.area.t0, drag.area.t1, drag.area.picked);
    drag = null;
  });
  canvas.addEventListener('mouseleave', () => { $('tooltip').hidden = true; });
  canvas.addEventListener('dblclick', (e) => {
    const [x, y] = canvasXY(e);
    if (x <= LABEL_W || y <= RULER_H) return;
    const s = hit(x, y);
    if (s && s.dur > 0) focusRange(s.ts, s.ts + s.dur);
    else zoom(0.5, x);
  });
  canvas.addEventListener('wheel', (e) => {
    e.preventDefault();
    const [x, y] = canvasXY(e);
    if (e.ctrlKey || e.metaKey) zoom(Math.exp(e.deltaY * 0.002), x);
    else if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) pan((e.deltaX || e.deltaY) / plotW());
    else scrollBy(e.deltaY);
    tooltipAt(x, y); // what is under the cursor now, not what was before the scroll
  }, { passive: false });
  document.addEventListener('keydown', (e) => {
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'f') { e.preventDefault(); $('search').focus(); $('search').select(); return; }
    if (e.target.closest && e.target.closest('input, textarea')) {
      if (e.key === 'Escape') e.target.blur();
      return;
    }
    const at = mouseX !== null && mouseX > LABEL_W ? mouseX : undefined;
    const k = e.key.toLowerCase();
    if (e.key === '/') $('search').focus();
    else if (k === 'w') zoom(0.8, at);
    else if (k === 's') zoom(1.25, at);
    else if (k === 'a') pan(-0.1);
    else if (k === 'd') pan(0.1);
    else if (k === 'm' && selected) { const [, ts, dur] = selected.slice; measure = { start: ts, end: ts + Math.max(dur, 0) }; draw(); }
    else if (k === 'f' && selected) focusRange(selected.slice[1], selected.slice[1] + Math.max(selected.slice[2], 0));
    else if (k === 'm' && selectedSys) { measure = { start: selectedSys.ts, end: selectedSys.ts + Math.max(selectedSys.dur, 0) }; draw(); }
    else if (k === 'f' && selectedSys) focusRange(selectedSys.ts, selectedSys.ts + Math.max(selectedSys.dur, 0));
    else if (k === 'f' && area) focusRange(area.start, area.end);
    else if (e.key === 'Escape') { selected = null; selectedCounter = null; selectedSys = null; area = null; measure = null; draw(); }
    else return;
    $('tooltip').hidden = true; // the view moved under the cursor
    e.preventDefault();
  });
  window.addEventListener('resize', () => { draw(); requestData(); });
  $('search').addEventListener('keydown', (e) => { if (e.key === 'Enter') runSearch(e.shiftKey ? -1 : 1); });
  $('search-next').addEventListener('click', () => runSearch(1));
  $('search-prev').addEventListener('click', () => runSearch(-1));
  $('track-filter').addEventListener('input', (e) => { tree.filter = e.target.value.trim().toLowerCase(); view.scrollY = 0; relayout(); });
  const follow = (e) => {
    const st = e.target.closest('[data-state]');
    if (st) { followState(Number(st.dataset.state)); return; }
    const el = e.target.closest('[data-id]');
    if (el) selectSlice(Number(el.dataset.id), true);
  };
  $('details').addEventListener('click', (e) => {
    const tab = e.target.closest('[data-tab]');
    if (tab && area && area.agg) { renderArea(tab.dataset.tab); return; }
    if (e.target.id === 'flame') { const r = e.target.getBoundingClientRect(); flameClick(e.clientX - r.left, e.clientY - r.top); return; }
    follow(e);
  });
  $('sql-result').addEventListener('click', follow);
  $('sql-run').addEventListener('click', () => runSql(0));
  $('sql-next').addEventListener('click', () => runSql(sql.offset + sql.result.rows.length));
  $('sql-prev').addEventListener('click', () => runSql(Math.max(0, sql.offset - 10000)));
  $('sql-cancel').addEventListener('click', () => backend.cancel());
  $('sql-csv').addEventListener('click', exportCsv);
  $('sql-text').addEventListener('keydown', (e) => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); runSql(0); } });
  splitter($('split-h'), (dx, dy, h0) => { $('bottom').style.height = `${Math.max(80, h0 - dy)}px`; }, () => $('bottom').offsetHeight);
  splitter($('split-v'), (dx, dy, w0) => { $('details').style.flex = `0 0 ${Math.max(120, w0 + dx)}px`; }, () => $('details').offsetWidth);
}

// A splitter: dragging it calls move(dx, dy, size at the start), then redraws the timeline.
function splitter(el, move, size) {
  el.addEventListener('mousedown', (e) => {
    const x0 = e.clientX, y0 = e.clientY, s0 = size();
    const onMove = (m) => { move(m.clientX - x0, m.clientY - y0, s0); draw(); };
    const onUp = () => { window.removeEventListener('mousemove', onMove); window.removeEventListener('mouseup', onUp); requestData(); if (area && area.tab === 'flame') drawFlame(); };
    window.addEventListener('mousemove', onMove);
    window.addEventListener('mouseup', onUp);
    e.preventDefault();
    e.stopPropagation();
  });
}

// ---- start -------------------------------------------------------------------------------

window.trakViewer = {
  // What is on screen, for tests and for debugging from the console.
  state: () => ({
    mode: backend.mode, start: view.start, end: view.end, traceStart: view.traceStart, traceEnd: view.traceEnd,
    rows: rows.map((r) => ({ kind: r.kind, key: r.key, label: r.label, track: r.track ? r.track.id : null, tracks: r.members ? r.members.map((m) => m.track.id) : null,
      metric: r.track ? r.track.metric : null, utid: r.track && r.track.isState ? r.track.utid : null, cpu: r.node.cpu ?? null, y: r.y, h: r.h, top: rowTop(r), pinned: r.pinned, collapsed: r.collapsed, collapsible: r.collapsible, summary: !!r.summary, sched: !!r.sched, indent: r.indent })),
    slices: drawn.slices.slice(), counters: drawn.counters.slice(), flows: drawn.flows.slice(), labels: drawn.labels.slice(),
    summaries: drawn.summaries.slice(), flags: flags.slice(), measure, pinnedH,
    area: area ? { start: area.start, end: area.end, tracks: area.tracks, keys: area.keys, agg: area.agg, tab: area.tab || null } : null,
    flame: { root: flame.root, nodes: flame.nodes, drawn: flame.drawn.slice() },
    counter: selectedCounter, filter: tree.filter, scrollY: view.scrollY,
    selected: selected ? selected.slice[0] : null, highlighted: [...highlight], answers: net.answers,
    minimap: miniState(),
    system: selectedSys ? { ...selectedSys } : null, wakeup: drawn.wakeup,
    idle: net.inflight === 0 && !drawQueued, error: net.error,
    fresh: net.key === wanted().key, // the data drawn is what the current view needs
  }),
  zoom, pan, setRange, selectSlice,
  // Scrolls the track's row to the top of the timeline.
  scrollToTrack: (id) => {
    if (!rowOfTrack.has(id) && treeReveal(id)) relayout();
    const p = rowOfTrack.get(id);
    if (p && !p.row.pinned) scrollBy(p.row.y - view.scrollY - HEADER_H);
  },
};

// ---- opening a trace (`trak ui`): the Open button or a file dropped on the page -----------

// Sends `file` to the server, which imports it and serves it instead; the page then starts over.
async function openTrace(file) {
  showNotice(`Opening ${file.name} (${(file.size / 1e6).toFixed(1)} MB)\u2026`);
  try {
    await backend.open(file);
  } catch (e) {
    showNotice(`Could not open ${file.name}: ${e.message || e}`);
    return;
  }
  history.replaceState(null, '', location.pathname); // the old view's URL state does not apply
  location.reload();
}

function bindOpen() {
  $('open').hidden = false;
  $('open').addEventListener('click', () => $('open-file').click());
  $('open-file').addEventListener('change', (e) => { if (e.target.files[0]) openTrace(e.target.files[0]); });
  document.addEventListener('dragover', (e) => { e.preventDefault(); document.body.classList.add('dropping'); });
  document.addEventListener('dragleave', () => document.body.classList.remove('dropping'));
  document.addEventListener('drop', (e) => {
    e.preventDefault();
    document.body.classList.remove('dropping');
    const file = e.dataTransfer && e.dataTransfer.files[0];
    if (file) openTrace(file);
  });
}

async function start() {
  bindInput();
  bindMinimap();
  $('sql').hidden = false; // in `trak html`, SQL runs on the tables inlined in the file
  if (backend.mode === 'ui') bindOpen();
  if (window.TRAK_DATA && window.TRAK_DATA.summary) showNotice(`Summarised: ${window.TRAK_DATA.summary}`);
  try {
    const info = await backend.info();
    if (info.name) {
      $('title').textContent = info.name;
      document.title = `${info.name} \u2014 trak`;
    }
    if (info.events === 0) showNotice('No trace yet: click Open, or drop a trace file on the page.');
    const [t, al] = await Promise.all([backend.tracks(), backend.alerts()]);
    for (const [id, type, message] of al) alerts.set(id, [type, message]);
    view.traceStart = t.start;
    view.traceEnd = t.end;
    view.start = t.start;
    view.end = t.end;
    treeBuild(t, canvas.getBoundingClientRect().height || 600);
    const sel = urlLoad();
    relayout();
    drawNow();
    if (sel !== null) selectSlice(sel, false);
    await requestData();
  } catch (e) {
    showNotice(`Could not load the trace: ${e.message || e}`);
  }
}
start();
