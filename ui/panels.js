// The panels of trak's viewer: a slice's details, a counter value's readout, the area
// selection's tabs (slices by name, counters, thread states, flame graph), the omnibox search (names, arg
// values, ids, and `:` for SQL), the SQL panel (pages, cancel, CSV) and the URL that holds the
// view (a permalink).
'use strict';

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
    selectedCounter = null;
    selectedSys = null;
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
  if (!rowOfTrack.has(track) && treeReveal(track)) relayout();
  const p = rowOfTrack.get(track);
  if (p && !p.row.pinned) {
    const y = p.row.y + (depth + p.offset) * ROW_H;
    if (y < view.scrollY || y > view.scrollY + view.height - RULER_H - pinnedH - 40) scrollBy(y - view.scrollY - (view.height - RULER_H) / 3);
  }
}

function hit(x, y) {
  for (let i = drawn.slices.length - 1; i >= 0; i--) {
    const s = drawn.slices[i];
    if (x >= s.x - 1 && x <= s.x + s.w + 1 && y >= s.y && y <= s.y + s.h) return s;
  }
  return null;
}


// Selects the value of counter `track` at time `t`: value, delta from the previous value, time.
// A delta track (cpustat) shows its drawn value, the change to the next sample, as "Delta".
function selectCounter(track, t) {
  const p = rowOfTrack.get(track);
  const at = counterAt(track, t);
  if (!p || !at) return;
  selected = null;
  selectedSys = null;
  area = null;
  selectedCounter = { track, ts: at.ts, value: at.value, prev: at.prev, name: p.row.label, unit: p.row.track.unit };
  const unit = selectedCounter.unit ? ` ${esc(selectedCounter.unit)}` : '';
  const delta = at.prev === null ? null : at.value - at.prev;
  const value = p.row.track.delta ? `<tr><td>Delta <span class="hint">(to the next sample)</span></td><td>${esc(fmtCounter(p.row.track, at.value))}</td></tr>`
    : `<tr><td>Value</td><td>${esc(fmtValue(at.value))}${unit}</td></tr>` +
      `<tr><td>Delta</td><td>${delta === null ? '\u2013' : `${delta >= 0 ? '+' : ''}${esc(fmtValue(delta))}${unit}`}</td></tr>`;
  $('details').innerHTML = `<h2>${esc(p.row.label)}</h2><table class="kv" id="counter-value">${value}` +
    `<tr><td>Time</td><td>${esc(fmtDur(at.ts - view.traceStart))} <span class="hint">(ts ${at.ts})</span></td></tr>` +
    `<tr><td>Track</td><td>#${track}</td></tr></table>`;
  draw();
}

// ---- area selection: tracks x time range -------------------------------------------------

const flame = { nodes: [], root: -1, drawn: [] }; // the selection's flame graph; root: zoomed node

// The tracks of the rows in [y0, y1] (canvas coordinates): slice members, a collapsed group's
// summary tracks, counters.
function areaRows(y0, y1) {
  return rows.filter((r) => { const t = rowTop(r); return t + r.h > y0 && t < y1 && (!r.pinned || y0 < RULER_H + pinnedH); });
}

async function selectArea(start, end, picked) {
  const tracks = new Set();
  for (const r of picked) {
    if (r.members) r.members.forEach((m) => tracks.add(m.track.id));
    else if (r.summary) r.summary.forEach((id) => tracks.add(id));
    else if (r.track) tracks.add(r.track.id);
    // A thread's row stands for the thread: its states count even when its state row is hidden.
    if (r.node && r.node.thread && r.node.thread.stateTrack !== undefined) tracks.add(r.node.thread.stateTrack);
  }
  area = { start: Math.round(start), end: Math.round(end), tracks: [...tracks], keys: picked.map((r) => r.key), agg: null };
  selected = null;
  selectedCounter = null;
  selectedSys = null;
  measure = null;
  draw();
  const mine = area;
  $('details').innerHTML = '<p class="hint">Summarising the selection\u2026</p>';
  try {
    const [agg, nodes] = await Promise.all([backend.aggregate(mine.tracks, mine), backend.flamegraph(mine.tracks, mine)]);
    if (area !== mine) return;
    mine.agg = agg;
    flame.nodes = nodes;
    flame.root = -1;
    const cpus = agg.cpus || [];
    renderArea(area.tab || (agg.slices.length ? 'slices' : agg.thread_states.length ? 'states' : cpus.length ? 'cpus' : 'slices'));
  } catch (e) {
    $('details').innerHTML = `<p class="error">${esc(e.message || e)}</p>`;
  }
}

function renderArea(tab) {
  area.tab = tab;
  const agg = area.agg;
  const tabs = [['slices', `Slices (${agg.slices.length})`], ['counters', `Counters (${agg.counters.length})`], ['flame', 'Flame graph']];
  if (agg.thread_states.length) tabs.splice(2, 0, ['states', `Thread states (${agg.thread_states.length})`]);
  if (agg.cpus && agg.cpus.length) tabs.splice(tabs.length - 1, 0, ['cpus', `CPU usage (${agg.cpus.length})`]);
  const byThread = agg.cpu_threads || [];
  if (byThread.length) {
    const at = tabs.findIndex(([k]) => k === 'flame');
    tabs.splice(at, 0, ['cpu-threads', `CPU by thread (${byThread.length})`], ['cpu-procs', `CPU by process (${cpuByProcess(byThread).length})`]);
  }
  let html = `<div class="tabs">${tabs.map(([k, t]) => `<button data-tab="${k}" class="${k === tab ? 'on' : ''}">${t}</button>`).join('')}` +
    `<span class="hint">${area.tracks.length} tracks \u00b7 ${esc(fmtDur(area.end - area.start))}</span></div>`;
  if (tab === 'slices') {
    html += '<table class="rows" id="agg-slices"><tr><th>Name</th><th>Occurrences</th><th>Wall total</th><th>Average</th><th>Self time</th></tr>' +
      agg.slices.map(([name, n, wall, avg, self]) => `<tr><td>${esc(name ?? '(no name)')}</td><td>${n}</td><td>${esc(fmtDur(wall))}</td><td>${esc(fmtDur(avg))}</td><td>${esc(fmtDur(self))}</td></tr>`).join('') + '</table>';
  } else if (tab === 'counters') {
    const name = (id) => { const p = rowOfTrack.get(id); return p ? p.row.label : `#${id}`; };
    html += '<table class="rows" id="agg-counters"><tr><th>Counter</th><th>Values</th><th>Min</th><th>Max</th><th>Average</th><th>Delta</th></tr>' +
      agg.counters.map(([id, n, mn, mx, avg, delta]) => `<tr><td>${esc(name(id))}</td><td>${n}</td><td>${esc(fmtValue(mn))}</td><td>${esc(fmtValue(mx))}</td><td>${esc(fmtValue(avg))}</td><td>${esc(fmtValue(delta))}</td></tr>`).join('') + '</table>';
  } else if (tab === 'states') {
    html += statesTable(agg.thread_states);
  } else if (tab === 'cpus') {
    html += cpusTable(agg.cpus, area.end - area.start);
  } else if (tab === 'cpu-threads') {
    html += cpuThreadsTable(agg.cpu_threads);
  } else if (tab === 'cpu-procs') {
    html += cpuProcessesTable(cpuByProcess(agg.cpu_threads));
  } else {
    html += '<canvas id="flame" height="10"></canvas>';
  }
  $('details').innerHTML = html;
  if (tab === 'flame') drawFlame();
}

// The flame graph, roots on top (as the Perfetto UI's slice flame graph): a node's width is its
// time share of the zoomed node (or of all roots); a click zooms to a node, a click on the zoomed
// node (or the top bar) zooms out.
function drawFlame() {
  const c = $('flame');
  if (!c) return;
  const nodes = flame.nodes, kids = nodes.map(() => []), roots = [];
  nodes.forEach((n, i) => (n[0] < 0 ? roots : kids[n[0]]).push(i));
  const FH = 18, w = c.parentElement.clientWidth - 4;
  let depth = 0;
  const place = [];
  const lay = (ids, x, scale, d) => {
    depth = Math.max(depth, d + 1);
    for (const i of ids.sort((a, b) => nodes[b][2] - nodes[a][2])) {
      const nw = nodes[i][2] * scale;
      if (nw >= 0.5) { place.push([i, x, d, nw]); lay(kids[i], x, scale, d + 1); }
      x += nw;
    }
  };
  const top = flame.root >= 0 ? [flame.root] : roots;
  const total = top.reduce((s, i) => s + nodes[i][2], 0) || 1;
  lay(top, 0, w / total, 1); // depth 0: the "all" bar
  const dpr = window.devicePixelRatio || 1;
  c.style.width = `${w}px`; c.style.height = `${(depth + 1) * FH}px`;
  c.width = w * dpr; c.height = (depth + 1) * FH * dpr;
  const g = c.getContext('2d');
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.font = '11px system-ui, sans-serif';
  g.textBaseline = 'middle';
  g.fillStyle = '#78909c';
  g.fillRect(0, 0, w, FH - 1);
  g.fillStyle = '#fff';
  g.fillText(flame.root >= 0 ? `\u2190 ${nodes[flame.root][1]}: ${fmtDur(total)} (click to zoom out)` : `all: ${fmtDur(total)}`, 4, FH / 2);
  flame.drawn = [{ node: -1, name: 'all', x: 0, y: 0, w, h: FH - 1 }];
  for (const [i, x, d, nw] of place) {
    const y = d * FH;
    g.fillStyle = colourOf(nodes[i][1]);
    g.fillRect(x, y, Math.max(nw - 1, 1), FH - 1);
    const label = nw > 20 ? fitFlame(g, `${nodes[i][1]} ${fmtDur(nodes[i][2])}`, nw - 6) : '';
    if (label) { g.fillStyle = '#fff'; g.fillText(label, x + 3, y + FH / 2); }
    flame.drawn.push({ node: i, name: nodes[i][1], total: nodes[i][2], x, y, w: nw, h: FH - 1 });
  }
}

function fitFlame(g, text, maxW) {
  if (g.measureText(text).width <= maxW) return text;
  for (let n = text.length - 1; n > 1; n--) if (g.measureText(`${text.slice(0, n)}\u2026`).width <= maxW) return `${text.slice(0, n)}\u2026`;
  return '';
}

function flameClick(x, y) {
  const hitNode = flame.drawn.find((r) => x >= r.x && x < r.x + r.w && y >= r.y && y < r.y + r.h);
  if (!hitNode) return;
  flame.root = hitNode.node === -1 || hitNode.node === flame.root ? (flame.root >= 0 ? flame.nodes[flame.root][0] : -1) : hitNode.node;
  drawFlame();
}

// ---- search: the omnibox -----------------------------------------------------------------

// Enter searches slice names, arg values and ids; text starting with ':' runs as SQL.
async function runSearch(step) {
  const text = $('search').value.trim();
  if (!text) return;
  if (text.startsWith(':')) {
    $('sql-text').value = text.slice(1).trim();
    runSql(0);
    return;
  }
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

// ---- SQL: pages of 10000 rows, cancel, CSV -------------------------------------------------

const sql = { text: '', offset: 0, result: null, running: false };

async function runSql(offset) {
  const text = $('sql-text').value;
  const status = $('sql-status');
  status.className = '';
  status.textContent = 'running\u2026';
  sql.running = true;
  $('sql-cancel').disabled = false;
  const t0 = performance.now();
  let r;
  try {
    r = await backend.query(text, offset);
  } catch (e) {
    status.className = 'error';
    status.textContent = String(e.message || e);
    return;
  } finally {
    sql.running = false;
    $('sql-cancel').disabled = true;
  }
  sql.text = text;
  sql.offset = offset;
  sql.result = r;
  const idCol = ['slice_id', 'id'].map((n) => r.columns.indexOf(n)).find((i) => i >= 0) ?? -1;
  highlight = new Set(idCol >= 0 ? r.rows.map((row) => row[idCol]).filter((v) => typeof v === 'number') : []);
  const first = offset + (r.rows.length ? 1 : 0), last = offset + r.rows.length;
  status.textContent = `${offset ? `rows ${first}\u2013${last}` : `${r.rows.length}${r.truncated ? '+' : ''} rows`} in ${Math.round(performance.now() - t0)} ms` +
    (highlight.size ? ` \u00b7 ${highlight.size} slices highlighted (column ${r.columns[idCol]})` : '');
  $('sql-prev').disabled = offset === 0;
  $('sql-next').disabled = !r.truncated;
  $('sql-csv').disabled = false;
  const shown = r.rows.slice(0, 500);
  $('sql-result').innerHTML = `<table class="rows"><tr>${r.columns.map((c) => `<th>${esc(c)}</th>`).join('')}</tr>` +
    shown.map((row) => `<tr${idCol >= 0 ? ` class="link" data-id="${row[idCol]}"` : ''}>${row.map((v) => `<td>${esc(v === null ? 'NULL' : v)}</td>`).join('')}</tr>`).join('') +
    '</table>' + (r.rows.length > shown.length ? `<p class="hint">${shown.length} of this page's ${r.rows.length} rows shown; CSV has them all.</p>` : '');
  draw();
}

function csvCell(v) {
  if (v === null || v === undefined) return '';
  const s = String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

// Every row of the last query (all pages) as CSV text, saved as a download.
async function exportCsv() {
  const lines = [];
  let offset = 0, r;
  do {
    r = await backend.query(sql.text, offset);
    if (!lines.length) lines.push(r.columns.map(csvCell).join(','));
    for (const row of r.rows) lines.push(row.map(csvCell).join(','));
    offset += r.rows.length;
  } while (r.truncated && r.rows.length);
  const blob = new Blob([`${lines.join('\n')}\n`], { type: 'text/csv' });
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = 'query.csv';
  document.body.appendChild(a);
  a.click();
  a.remove();
  $('sql-status').textContent = `${lines.length - 1} rows exported as CSV`;
}

// ---- URL state: the view as a permalink ----------------------------------------------------

// #v=START,END (ns from the trace's start) &c=collapsed keys &pin=pinned keys &f=filter
// &sel=slice id &flags=times
let urlTimer = null;
function urlSave() {
  if (urlTimer || !rows.length) return;
  urlTimer = setTimeout(() => {
    urlTimer = null;
    const p = new URLSearchParams();
    p.set('v', `${Math.round(view.start - view.traceStart)},${Math.round(view.end - view.traceStart)}`);
    p.set('c', [...tree.collapsed].join('.'));
    if (tree.pinned.length) p.set('pin', tree.pinned.join('.'));
    if (tree.filter) p.set('f', tree.filter);
    if (selected) p.set('sel', selected.slice[0]);
    if (flags.length) p.set('flags', flags.map((t) => Math.round(t - view.traceStart)).join('.'));
    const hash = `#${p.toString()}`;
    if (location.hash !== hash) history.replaceState(null, '', hash);
  }, 150);
}

// Applies the URL's state (before the first layout). Returns the slice id to select, or null.
function urlLoad() {
  const p = new URLSearchParams(location.hash.slice(1));
  if (p.has('c')) tree.collapsed = new Set(p.get('c').split('.').filter(Boolean));
  if (p.has('pin')) tree.pinned = p.get('pin').split('.').filter(Boolean);
  if (p.has('f')) { tree.filter = p.get('f').toLowerCase(); $('track-filter').value = p.get('f'); }
  if (p.has('flags')) flags.push(...p.get('flags').split('.').map((t) => view.traceStart + Number(t)).filter(Number.isFinite));
  if (p.has('v')) {
    const [a, b] = p.get('v').split(',').map(Number);
    if (Number.isFinite(a) && Number.isFinite(b) && b > a) { view.start = view.traceStart + a; view.end = view.traceStart + b; }
  }
  return p.has('sel') ? Number(p.get('sel')) : null;
}
