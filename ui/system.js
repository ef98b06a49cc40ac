// The viewer's system tracks from the Linux tables: a CPU's scheduling slices coloured by thread
// (the same colour for a thread on every CPU), a thread's states coloured as the Perfetto UI
// colours them, their tooltips, the details of a clicked thread state (with the wakeup that made
// it runnable and its waker) or CPU slice, and the area selection's "Thread states", "CPU
// usage", "CPU by thread" and "CPU by process" tabs.
'use strict';

let selectedSys = null; // {what, id, ts, dur}: the thread state or CPU slice selected

// Linux task state letters as Perfetto's UI spells them.
const STATE_NAMES = {
  R: 'Runnable', S: 'Sleeping', D: 'Uninterruptible Sleep', T: 'Stopped', t: 'Traced',
  X: 'Exit (Dead)', Z: 'Exit (Zombie)', x: 'Task Dead', I: 'Idle', K: 'Wake Kill', W: 'Waking',
  P: 'Parked', N: 'No Load', '+': '(Preempted)',
};

// "Running", "Runnable (Preempted)", "Uninterruptible Sleep (IO)", ...; io: 1, 0 or null.
function stateName(state, io) {
  if (state === null || state === undefined) return 'Unknown';
  if (!STATE_NAMES[state[0]] || state === 'Running' || state === 'Created') return state;
  let s = STATE_NAMES[state[0]];
  if (io === 1) s += ' (IO)';
  else if (io === 0 && state[0] === 'D') s += ' (non-IO)';
  for (const c of state.slice(1)) s += (c === '+' ? ' ' : ' + ') + (STATE_NAMES[c] || c);
  return s;
}

// The Perfetto UI's thread-state colours (its Sched plugin): Running dark green, Runnable lime,
// Uninterruptible orange (desaturated red when not waiting on IO), Sleeping white, Dead grey.
function stateColour(state, io) {
  const n = stateName(state, io);
  if (n === 'Created') return 'hsl(0,0%,70%)';
  if (n === 'Running') return 'hsl(120,44%,34%)';
  if (n.startsWith('Runnable')) return 'hsl(75,55%,47%)';
  if (n.includes('Uninterruptible Sleep')) return n.includes('non-IO') ? 'hsl(3,30%,49%)' : 'hsl(36,100%,50%)';
  if (n.includes('Dead')) return 'hsl(0,0%,62%)';
  if (n.includes('Sleeping') || n.includes('Idle')) return '#fff';
  if (n.includes('Unknown')) return 'hsl(44,63%,91%)';
  return 'hsl(231,48%,48%)';
}
const lightFill = (c) => c === '#fff' || c.endsWith('91%)') || c.endsWith('47%)') || c.endsWith(',50%)');

// A thread's colour, the same on every CPU track.
function threadColour(utid) { return colourOf(`\u0001thread ${threadLabel(utid)}`); }

// One lane of non-overlapping intervals: calls put(entry, x, w) for each one on screen.
function eachInterval(row, top, put) {
  const y = top + 2, h = ROW_H - 2;
  for (const e of data.slices[row.track.id] || []) {
    const [, ts, dur] = e;
    const x0 = xOf(ts), x1 = dur < 0 ? view.width : xOf(ts + dur);
    if (x1 < LABEL_W || x0 > view.width) continue;
    const a = Math.max(x0, LABEL_W), w = Math.max(Math.min(x1, view.width) - a, 1);
    put(e, a, y, w, h);
  }
}

function outlineIfSelected(what, id, x, y, w, h) {
  if (!selectedSys || selectedSys.what !== what || selectedSys.id !== id) return;
  ctx.strokeStyle = '#000'; ctx.lineWidth = 2; ctx.strokeRect(x + 1, y + 1, w - 2, h - 2); ctx.lineWidth = 1;
}

// A CPU: entries [0, ts, dur, sched_id, null, count, utid], each the thread's colour and name.
function drawSchedRow(row, top) {
  ctx.font = '11px system-ui, sans-serif';
  ctx.textBaseline = 'middle';
  eachInterval(row, top, ([, ts, dur, id, , count, utid], x, y, w, h) => {
    const name = threadLabel(utid);
    ctx.fillStyle = threadColour(utid);
    ctx.fillRect(x, y, w, h);
    const label = w > 16 ? fitText(name, w - 6) : '';
    if (label) { ctx.fillStyle = '#fff'; ctx.fillText(label, x + 3, y + h / 2 + 0.5); }
    outlineIfSelected('sched', id, x, y, w, h);
    drawn.slices.push({ kind: 'sched', id, name, ts, dur, utid, cpu: row.node.cpu, x, y, w, h, track: row.track.id, row: row.key, count, label });
  });
}

// A collapsed process's scheduling (row.sched from treeProcessSched): a lane per CPU holding the
// CPU's slices of the process's threads (summarised among them alone, backend.sched), each the
// thread's colour, as Perfetto's process scheduling summary. Drawn entries are CPU slices
// (hover, click) marked `summary`.
function drawProcessSchedRow(row, top) {
  const { cpus } = row.sched, answer = data.sched[row.key] || {};
  const laneH = Math.max(1, (row.h - 6) / cpus.length);
  let n = 0;
  cpus.forEach(({ id, cpu }, lane) => {
    const y = top + 3 + lane * laneH;
    for (const [, ts, dur, sid, , count, utid] of answer[id] || []) {
      const x0 = xOf(ts), x1 = dur < 0 ? view.width : xOf(ts + dur);
      if (x1 < LABEL_W || x0 > view.width) continue;
      const x = Math.max(x0, LABEL_W), w = Math.max(Math.min(x1, view.width) - x, 1);
      ctx.fillStyle = threadColour(utid);
      ctx.fillRect(x, y, w, Math.max(1, laneH - 1));
      outlineIfSelected('sched', sid, x, y, w, laneH);
      drawn.slices.push({ kind: 'sched', summary: true, id: sid, name: threadLabel(utid), ts, dur, utid, cpu, x, y, w, h: laneH, track: id, row: row.key, count, label: '' });
      n++;
    }
  });
  drawn.summaries.push({ key: row.key, sched: true, lanes: cpus.length, slices: n });
}

// A thread's states: entries [0, ts, dur, thread_state_id, state, count, cpu, io_wait].
function drawStateRow(row, top) {
  ctx.font = '11px system-ui, sans-serif';
  ctx.textBaseline = 'middle';
  eachInterval(row, top, ([, ts, dur, id, state, count, cpu, io], x, y, w, h) => {
    const name = stateName(state, io), fill = stateColour(state, io);
    ctx.fillStyle = fill;
    ctx.fillRect(x, y, w, h);
    const label = w > 16 ? fitText(name, w - 6) : '';
    if (label) { ctx.fillStyle = lightFill(fill) ? '#37474f' : '#fff'; ctx.fillText(label, x + 3, y + h / 2 + 0.5); }
    outlineIfSelected('thread_state', id, x, y, w, h);
    drawn.slices.push({ kind: 'state', id, name, state, ts, dur, cpu, io, utid: row.track.utid, x, y, w, h, track: row.track.id, row: row.key, count, label });
  });
}

// The tooltip of a drawn CPU slice or thread state (drawn.slices entry `s`).
function systemTooltip(s) {
  const d = s.dur < 0 ? 'did not end' : esc(fmtDur(s.dur));
  const many = s.count > 1 ? ` <span class="hint">(${s.count} here)</span>` : '';
  if (s.kind === 'sched') {
    const th = tree.threads.get(s.utid), p = th && th.upid !== null ? tree.processes.get(th.upid) : null;
    return `<b>${esc(s.name)}</b>${many}<br>${d} on CPU ${s.cpu}${p ? `<br>${esc(processLabel(p))}` : ''}`;
  }
  return `<b>${esc(s.name)}</b>${s.cpu !== null && s.cpu !== undefined ? ` on CPU ${s.cpu}` : ''}${many}<br>${d}<br>${esc(threadLabel(s.utid))}`;
}

// Selects a thread state or CPU slice (`s`: its drawn entry, or {kind, id}) and shows its
// details ({columns, rows} from the backend, by column name). Resolves to the row, or null.
async function selectSystem(s) {
  const what = s.kind === 'sched' ? 'sched' : 'thread_state';
  selected = null;
  selectedCounter = null;
  selectedSys = { what, id: s.id, ts: s.ts, dur: s.dur };
  draw();
  let row;
  try {
    const r = await backend.row(what, s.id);
    if (!r.rows.length) throw new Error(`no ${what} ${s.id}`);
    row = Object.fromEntries(r.columns.map((c, i) => [c, r.rows[0][i]]));
  } catch (e) {
    if (s.ts === undefined) { $('details').innerHTML = `<p class="error">${esc(e.message || e)}</p>`; return null; }
    row = { id: s.id, ts: s.ts, dur: s.dur, state: s.state, cpu: s.cpu, io_wait: s.io, utid: s.utid, partial: String(e.message || e) };
  }
  if (!selectedSys || selectedSys.id !== s.id || selectedSys.what !== what) return null;
  Object.assign(selectedSys, { ts: row.ts, dur: row.dur, cpu: row.cpu ?? null });
  // A CPU slice's wakeup, drawn over the tracks as Perfetto's waker overlay draws it.
  selectedSys.wakeup = what === 'sched' && row.wakeup_ts !== null && row.wakeup_ts !== undefined
    ? { ts: row.wakeup_ts, cpu: row.waker_cpu ?? null } : null;
  $('details').innerHTML = what === 'sched' ? schedDetails(row) : stateDetails(row);
  draw();
  return row;
}

const threadOf = (tid, name) => (tid === null || tid === undefined ? null : `${esc(name || 'thread')} ${tid}`);
// A process "name pid"; one with no name is named as the tree names it (by its main thread).
function procOf(pid, name) {
  if (pid === null || pid === undefined) return null;
  const p = name ? null : [...tree.processes.values()].find((x) => x.pid === pid);
  return esc(p ? processLabel(p) : `${name || 'process'} ${pid}`);
}
const kvTable = (id, kv) => `<table class="kv" id="${id}">${kv.filter(([, v]) => v !== null && v !== undefined)
  .map(([k, v]) => `<tr><td>${k}</td><td>${v}</td></tr>`).join('')}</table>`;
const when = (ts) => `${esc(fmtDur(ts - view.traceStart))} <span class="hint">(ts ${ts})</span>`;
const stateLink = (id, text) => `<a class="slice" data-state="${id}">${text}</a>`;

function stateDetails(r) {
  const name = stateName(r.state, r.io_wait);
  const kv = [
    ['State', esc(name)], ['Start', when(r.ts)],
    ['Duration', r.dur < 0 ? 'did not end' : `${esc(fmtDur(r.dur))} <span class="hint">(${r.dur} ns)</span>`],
    ['CPU', r.cpu], ['Thread', threadOf(r.tid, r.thread) ?? esc(threadLabel(r.utid))], ['Process', procOf(r.pid, r.process)],
    ['Blocked in', r.blocked_function ? esc(r.blocked_function) : null], ['Thread state id', r.id],
  ];
  let html = `<h2>${esc(name)}</h2>${kvTable('state-details', kv)}`;
  if (r.waker_utid !== null && r.waker_utid !== undefined) {
    const waker = threadOf(r.waker_tid, r.waker_thread);
    const wk = [
      ['Woken at', when(r.wakeup_ts)],
      ['Waker', r.waker_id !== null && r.waker_id !== undefined ? stateLink(r.waker_id, waker) : waker],
      ['Waker process', procOf(r.waker_pid, r.waker_process)], ['Waker CPU', r.waker_cpu],
      ['Interrupt', r.irq_context ? 'woken from an interrupt' : null],
    ];
    html += `<h2>Wakeup</h2>${kvTable('waker', wk)}`;
  }
  if (r.partial) html += `<p class="hint">More details need the trace's tables: ${esc(r.partial)}</p>`;
  return html;
}

function schedDetails(r) {
  const kv = [
    ['Thread', threadOf(r.tid, r.thread) ?? esc(threadLabel(r.utid))], ['Process', procOf(r.pid, r.process)],
    ['CPU', r.cpu], ['Start', when(r.ts)],
    ['Duration', r.dur < 0 ? 'did not end' : `${esc(fmtDur(r.dur))} <span class="hint">(${r.dur} ns)</span>`],
    ['End state', r.end_state ? esc(stateName(r.end_state, null)) : null], ['Priority', r.priority],
    ['Thread state', r.thread_state_id !== null && r.thread_state_id !== undefined ? stateLink(r.thread_state_id, 'Running') : null],
    ['Sched id', r.id],
  ];
  let html = `<h2>${threadOf(r.tid, r.thread) ?? esc(threadLabel(r.utid))}</h2>${kvTable('sched-details', kv)}`;
  // Perfetto's "Scheduling Latency": when and by whom the thread was woken, on which CPU, and
  // how long it then waited to run.
  if (r.wakeup_ts !== null && r.wakeup_ts !== undefined) {
    const waker = threadOf(r.waker_tid, r.waker_thread), lat = r.ts - r.wakeup_ts;
    const wk = [
      ['Wakeup', when(r.wakeup_ts)], ['Waker CPU', r.waker_cpu],
      ['Waker', r.waker_id !== null && r.waker_id !== undefined ? stateLink(r.waker_id, waker) : waker],
      ['Waker process', procOf(r.waker_pid, r.waker_process)],
      ['Scheduling latency', `${esc(fmtDur(lat))} <span class="hint">(${lat} ns)</span>`],
    ];
    html += `<h2>Scheduling latency</h2>${kvTable('sched-latency', wk)}`;
  }
  return html;
}

// Perfetto's waker overlay, for a selected CPU slice with a wakeup: a line at the wakeup time
// over every track, a diamond on the waker's CPU row there, and on the slice's own CPU row an
// arrow from the wakeup to the slice's start (its scheduling latency). drawn.wakeup records it.
function drawWakeup() {
  drawn.wakeup = null;
  const w = selectedSys && selectedSys.what === 'sched' ? selectedSys.wakeup : null;
  if (!w) return;
  const x = Math.round(xOf(w.ts)) + 0.5, x1 = xOf(selectedSys.ts);
  const cpuRow = (cpu) => rows.find((r) => r.kind === 'sched' && r.node.cpu === cpu) || null;
  ctx.strokeStyle = 'rgba(0,0,0,0.55)';
  ctx.fillStyle = 'rgba(0,0,0,0.55)';
  ctx.lineWidth = 1;
  ctx.beginPath(); ctx.moveTo(x, RULER_H); ctx.lineTo(x, view.height); ctx.stroke();
  const waker = w.cpu !== null ? cpuRow(w.cpu) : null, own = cpuRow(selectedSys.cpu);
  let marker = null, arrow = null;
  if (waker) {
    const y = rowTop(waker) + waker.h / 2, d = 5;
    ctx.beginPath(); ctx.moveTo(x, y - d); ctx.lineTo(x + d, y); ctx.lineTo(x, y + d); ctx.lineTo(x - d, y); ctx.closePath(); ctx.fill();
    marker = { x, y, row: waker.key };
  }
  if (own) {
    const y = rowTop(own) + own.h / 2;
    ctx.beginPath(); ctx.moveTo(x, y); ctx.lineTo(x1, y); ctx.stroke();
    ctx.beginPath(); ctx.moveTo(x1, y); ctx.lineTo(x1 - 5, y - 3); ctx.lineTo(x1 - 5, y + 3); ctx.closePath(); ctx.fill();
    arrow = { x0: x, x1, y, row: own.key };
  }
  drawn.wakeup = { ts: w.ts, cpu: w.cpu, x, marker, arrow };
}

// A link to a thread state (a waker's): selects it and brings it on screen.
async function followState(id) {
  const row = await selectSystem({ kind: 'state', id });
  const th = row ? tree.threads.get(row.utid) : null;
  if (th && th.stateTrack !== undefined) revealSlice(row.ts, Math.max(row.dur, 0), th.stateTrack, 0);
}

// The area selection's "Thread states" tab: time per state over the selected threads (a state
// blocked on IO apart from one that was not, as Perfetto's).
function statesTable(states) {
  const total = states.reduce((s, x) => s + x[2], 0) || 1;
  return '<table class="rows" id="agg-states"><tr><th>State</th><th>Time</th><th>%</th><th>Occurrences</th></tr>' +
    states.map(([state, n, t, io]) => `<tr><td><span class="swatch" style="background:${stateColour(state, io ?? null)}"></span>${esc(stateName(state, io ?? null))}</td>` +
      `<td>${esc(fmtDur(t))}</td><td>${(100 * t / total).toFixed(1)}</td><td>${n}</td></tr>`).join('') + '</table>';
}

// The area selection's "CPU usage" tab: per selected CPU, the time threads ran on it within the
// range (the idle thread's time left out), its share of the range and the scheduling slices.
function cpusTable(cpus, span) {
  return '<table class="rows" id="agg-cpus"><tr><th>CPU</th><th>Busy</th><th>Usage %</th><th>Slices</th></tr>' +
    cpus.map(([cpu, n, busy]) => `<tr><td>CPU ${cpu}</td><td>${esc(fmtDur(busy))}</td>` +
      `<td>${(100 * busy / Math.max(span, 1)).toFixed(1)}</td><td>${n}</td></tr>`).join('') + '</table>';
}

// The area selection's "CPU by thread" and "CPU by process" tabs, as Perfetto's CPU slices
// aggregation groups them: per thread (or process), its CPU time on the selected CPUs within the
// range (each slice clipped to it), that time's share of all of it, the average slice and the
// slices, most time first. rows: [[utid, slices, busy]...] (cpu_threads).
function cpuTimeTable(id, head, rows) {
  const total = rows.reduce((s, x) => s + x.busy, 0) || 1;
  return `<table class="rows" id="${id}"><tr>${head.map((h) => `<th>${h}</th>`).join('')}<th>CPU time</th><th>CPU time %</th><th>Average</th><th>Occurrences</th></tr>` +
    rows.map((x) => `<tr>${x.cells.map((c) => `<td>${c}</td>`).join('')}<td>${esc(fmtDur(x.busy))}</td>` +
      `<td>${(100 * x.busy / total).toFixed(1)}</td><td>${esc(fmtDur(x.busy / x.n))}</td><td>${x.n}</td></tr>`).join('') + '</table>';
}

const processOfThread = (utid) => {
  const th = tree.threads.get(utid);
  return th && th.upid !== null && th.upid !== undefined ? tree.processes.get(th.upid) || null : null;
};

function cpuThreadsTable(rows) {
  return cpuTimeTable('agg-cpu-threads', ['Process', 'Thread'], rows.map(([utid, n, busy]) => {
    const p = processOfThread(utid);
    return { cells: [p ? esc(processLabel(p)) : '', esc(threadLabel(utid))], n, busy };
  }));
}

// cpu_threads summed per process (threads with no process together), most time first:
// [{upid, n, busy}...].
function cpuByProcess(rows) {
  const by = new Map();
  for (const [utid, n, busy] of rows) {
    const p = processOfThread(utid), key = p ? p.upid : null;
    const a = by.get(key) || { upid: key, n: 0, busy: 0 };
    a.n += n; a.busy += busy;
    by.set(key, a);
  }
  return [...by.values()].sort((a, b) => b.busy - a.busy || (a.upid ?? -1) - (b.upid ?? -1));
}

function cpuProcessesTable(procs) {
  return cpuTimeTable('agg-cpu-procs', ['Process'], procs.map(({ upid, n, busy }) => ({
    cells: [upid === null ? '(no process)' : esc(processLabel(tree.processes.get(upid)))], n, busy })));
}
