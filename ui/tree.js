// The viewer's track tree: processes, threads and tracks in Perfetto's order as nodes that
// collapse and expand, pin to the top and filter by name, flattened into the rows the timeline
// draws. A node is a row: a header (a group), a slice track (one or several tracks merged into
// lanes, as an async track's overlapping slices), a counter track, or a system track from the
// Linux tables: a CPU's scheduling slices (`sched`, in the CPUs group at the top, the CPU's
// counters under it) and a thread's states (`state`, under the thread's own row).
'use strict';

const ROW_H = 18, HEADER_H = 22, SUMMARY_H = 28, COUNTER_H = 46, SYSTEM_H = ROW_H + 4;

const tree = {
  roots: [],           // top-level nodes
  byKey: new Map(),    // key -> node
  collapsed: new Set(),// keys of collapsed nodes
  pinned: [],          // keys of pinned nodes, in pin order
  filter: '',          // lower-case text a shown row's label (or an ancestor's) contains
  threads: new Map(),  // utid -> {utid, tid, name, upid, stateTrack}
  processes: new Map(),// upid -> {upid, pid, name, ...}
  cpuTracks: [],       // [{id, cpu}]: the CPUs' scheduling tracks, by CPU
};

// A thread's name as the viewer shows it: "name tid".
function threadLabel(utid) {
  const th = tree.threads.get(utid);
  return th ? `${th.name || 'thread'} ${th.tid ?? ''}`.trim() : `utid ${utid}`;
}

// A process's name, or its main thread's when it has none (systrace text names threads only).
function processLabel(p) {
  const main = p.threads.find((th) => th.tid === p.pid && th.name);
  return `${p.name || (main ? main.name : 'process')} ${p.pid ?? ''}`.trim();
}

function byOrdering(ordering) {
  if (ordering === 'explicit') return (a, b) => (a.rank ?? 0) - (b.rank ?? 0) || a.id - b.id;
  if (ordering === 'lexicographic') return (a, b) => (a.name || '').localeCompare(b.name || '') || a.id - b.id;
  if (ordering === 'chronological') return (a, b) => (a.firstTs ?? Infinity) - (b.firstTs ?? Infinity) || a.id - b.id;
  return (a, b) => a.id - b.id;
}

// Builds the tree from the /api/tracks answer. Collapses the processes when there are several and
// the whole tree would be taller than `screenH` three times over (as Perfetto shows processes
// collapsed); a lone process stays open.
function treeBuild(t, screenH) {
  const procs = new Map(t.processes.map(([upid, pid, name, sort]) => [upid, { upid, pid, name, sort, tracks: [], threads: [] }]));
  const threads = new Map(t.threads.map(([utid, tid, name, upid, sort, main]) => [utid, { utid, tid, name, upid, sort, main, tracks: [] }]));
  const tracks = new Map();
  // Counters drawn as each value's change to the next (Perfetto's yMode 'delta'): the server
  // decides which (the /proc/stat times) and sends those tracks' values as deltas.
  const deltas = new Set(t.delta_tracks || []);
  for (const r of t.tracks) {
    tracks.set(r[0], {
      id: r[0], name: r[1], type: r[2], utid: r[3], upid: r[4], parent: r[5], ordering: r[6],
      rank: r[7], unit: r[8], maxDepth: r[9] ?? 0, firstTs: r[10], isCounter: !!r[11],
      metric: r[12], count: r[13], children: [],
      delta: deltas.has(r[0]),
    });
  }
  // A thread's state track (the Linux thread_state table) joins the thread's tracks.
  for (const [id, utid, count] of t.thread_states || []) {
    const th = threads.get(utid);
    if (!th) continue;
    th.stateTrack = id;
    th.tracks.push({ id, name: 'Thread state', type: 'thread_state', utid, upid: th.upid, parent: null,
      isState: true, count, maxDepth: 0, children: [] });
  }
  // CPU counters (frequency, idle state) go under their CPU, not among the global tracks.
  const cpuOf = new Map((t.cpu_counters || []).map(([id, cpu]) => [id, cpu]));
  // So do interrupts: the "Irq Cpu N" and "SoftIrq Cpu N" slice tracks.
  const irqOf = new Map((t.cpu_slices || []).map(([id, cpu]) => [id, cpu]));
  const global = [], annotations = [];
  for (const tr of tracks.values()) {
    if (cpuOf.has(tr.id) || irqOf.has(tr.id)) continue;
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
  const keys = new Map();
  const node = (key, label, kind, extra) => {
    const n = { key, label, kind, children: [], ...extra };
    keys.set(key, n);
    return n;
  };
  const sliceH = (lanes) => lanes * ROW_H + 4;
  // One track and its children as nodes.
  const trackNode = (tr, fallback) => {
    if (!hasData(tr)) return null;
    const label = tr.name || fallback || tr.type;
    let n;
    if (tr.isState) n = node(`s${tr.utid}`, label, 'state', { track: tr, h: SYSTEM_H });
    else if (tr.isCounter) n = node(`k${tr.id}`, label, 'counter', { track: tr, h: COUNTER_H });
    else if (tr.count > 0) n = node(`k${tr.id}`, label, 'slice', { track: tr, members: [{ track: tr, offset: 0 }], h: sliceH(tr.maxDepth + 1) });
    else n = node(`k${tr.id}`, label, 'header', { h: HEADER_H });
    tr.children.sort(byOrdering(tr.ordering));
    n.children = mergeAsync(tr.children.map((c) => trackNode(c)).filter(Boolean));
    return n;
  };
  // Sibling slice tracks with the same name and no children become one row, each track's slices
  // in lanes of their own below the previous track's (Perfetto shows one async track so).
  const mergeAsync = (nodes) => {
    const out = [], byName = new Map();
    for (const n of nodes) {
      const first = n.kind === 'slice' && !n.children.length && n.track.name ? byName.get(n.track.name) : null;
      if (!first) {
        if (n.kind === 'slice' && !n.children.length && n.track.name) byName.set(n.track.name, n);
        out.push(n);
        continue;
      }
      const lanes = first.members.reduce((s, m) => Math.max(s, m.offset + m.track.maxDepth + 1), 0);
      first.members.push({ track: n.track, offset: lanes });
      first.h = sliceH(lanes + n.track.maxDepth + 1);
      keys.delete(n.key);
    }
    return out;
  };
  const bySort = (a, b) => (a.sort ?? Infinity) - (b.sort ?? Infinity);
  const roots = [];
  // The CPUs first, as Perfetto shows them: each CPU's scheduling slices, its interrupts and
  // counters under it.
  const cpus = new Map((t.cpus || []).map(([id, cpu, count]) => [cpu, { id, cpu, count }]));
  for (const cpu of [...cpuOf.values(), ...irqOf.values()]) if (!cpus.has(cpu)) cpus.set(cpu, { id: null, cpu, count: 0 });
  tree.cpuTracks = [...cpus.values()].filter((c) => c.id !== null).sort((a, b) => a.cpu - b.cpu).map(({ id, cpu }) => ({ id, cpu }));
  if (cpus.size) {
    const g = node('cpus', 'CPUs', 'header', { h: HEADER_H });
    const names = { cpufreq: 'frequency', cpuidle: 'idle state' };
    for (const c of [...cpus.values()].sort((a, b) => a.cpu - b.cpu)) {
      const n = c.id === null ? node(`c${c.cpu}`, `CPU ${c.cpu}`, 'header', { h: HEADER_H })
        : node(`c${c.cpu}`, `CPU ${c.cpu}`, 'sched', { h: SYSTEM_H, cpu: c.cpu,
          track: { id: c.id, name: `CPU ${c.cpu}`, type: 'cpu', count: c.count, maxDepth: 0, children: [] } });
      for (const [id, cpu] of irqOf) {
        const tr = tracks.get(id), n2 = cpu === c.cpu && tr ? trackNode(tr) : null;
        if (n2) n.children.push(n2);
      }
      for (const [id, cpu] of cpuOf) {
        const tr = tracks.get(id);
        if (cpu === c.cpu && tr && tr.count > 0 && tr.type !== 'cpustat') n.children.push(node(`k${id}`, `CPU ${cpu} ${names[tr.name] || tr.name}`, 'counter', { track: tr, h: COUNTER_H }));
      }
      g.children.push(n);
    }
    g.children.push(...cpuStatGroups(tracks, cpuOf, node));
    roots.push(g);
  }
  const [standard, rest] = standardGroups(global, node);
  roots.push(...standard);
  // Perfetto's Scheduler group (its Sched plugin), collapsed, after the standard groups: how many CPUs ran a thread, and how
  // many threads were runnable or in uninterruptible sleep, over time (src/ui/sched_counts.c).
  if ((t.sched_counts || []).length) {
    // The active CPU count per CPU type (big.LITTLE) goes under the active CPU count, as in Perfetto.
    const g = node('g-scheduler', 'Scheduler', 'header', { h: HEADER_H }), byId = new Map();
    for (const [id, name, count, parent] of t.sched_counts) {
      const tr = { id, name, type: 'sched_count', utid: null, upid: null, parent: null, unit: null,
        isCounter: true, count, maxDepth: 0, children: [] };
      const n = node(`k${id}`, name, 'counter', { track: tr, h: COUNTER_H });
      byId.set(id, n);
      (byId.get(parent) || g).children.push(n);
    }
    roots.push(g);
  }
  roots.push(...mergeAsync(rest.sort(byOrdering(null))
    .map((tr) => trackNode(tr, tr.utid === null && tr.upid === null ? 'Global events' : null)).filter(Boolean)));
  if (annotations.length) {
    const g = node('annotations', 'Annotations', 'header', { h: HEADER_H });
    g.children = annotations.sort(byOrdering(null)).map((tr) => trackNode(tr, `annotations (${tr.metric})`)).filter(Boolean);
    roots.push(g);
  }
  const procList = [...procs.values()].filter((p) => p.tracks.some(hasData) || p.threads.some((th) => th.tracks.some(hasData)));
  procList.sort((a, b) => bySort(a, b) || (a.pid ?? 0) - (b.pid ?? 0));
  const threadNodes = (th) => {
    const name = `${th.name || 'thread'} ${th.tid ?? ''}`.trim();
    // The thread's own slices first (its row), then its state, then its other tracks under it.
    const rank = (tr) => (tr.type === 'thread_track' ? 0 : tr.isState ? 1 : 2);
    th.tracks.sort((a, b) => rank(a) - rank(b) || !!a.metric - !!b.metric || a.id - b.id);
    const ns = th.tracks.map((tr, i) => trackNode(tr, i === 0 ? name : `${name} ${tr.type}`)).filter(Boolean);
    if (!ns.length) return [];
    const [own, ...rest] = ns;
    keys.delete(own.key);
    own.key = `t${th.utid}`;
    if (own.track && own.track.isState) own.label = name; // no slices: the state row is the thread's
    keys.set(own.key, own);
    own.children = own.children.concat(rest);
    own.thread = th;
    return [own];
  };
  for (const p of procList) {
    const g = node(`p${p.upid}`, processLabel(p), 'header', { h: HEADER_H, process: p });
    // Process-scoped tracks (async slices, counters), then annotations scoped to the process.
    p.tracks.sort((a, b) => !!a.metric - !!b.metric || a.id - b.id);
    g.children = mergeAsync(p.tracks.map((tr) => trackNode(tr)).filter(Boolean));
    p.threads.sort((a, b) => bySort(a, b) || b.main - a.main || (a.tid ?? 0) - (b.tid ?? 0));
    for (const th of p.threads) g.children.push(...threadNodes(th));
    roots.push(g);
  }
  for (const th of threads.values()) { // threads with no process
    if (th.upid === null || !procs.has(th.upid)) roots.push(...threadNodes(th));
  }
  tree.roots = roots;
  tree.byKey = keys;
  tree.threads = threads;
  tree.processes = procs;
  let total = 0;
  const walk = (n) => { total += n.h; n.children.forEach(walk); };
  roots.forEach(walk);
  if (total > screenH * 3 && procList.length > 1) for (const p of procList) tree.collapsed.add(`p${p.upid}`);
  // The system counters' groups start collapsed, as Perfetto's standard groups do.
  for (const key of keys.keys()) if (key.startsWith('g-')) tree.collapsed.add(key);
}

// The /proc/stat times per CPU (counter tracks of type `cpustat`, "cpu.times.user_ns"...) as
// Perfetto groups them: one group per time ("User Time"), a row per CPU in it ("User Time (CPU
// 0)"). Returns the group nodes (made with `node`), keyed `g-cpustat-NAME`.
const CPU_TIMES = { user_ns: 'User Time', user_nice_ns: 'Nice Time', system_mode_ns: 'Kernel Time',
  idle_ns: 'Idle Time', io_wait_ns: 'IO Wait Time', irq_ns: 'Hardware IRQ Time', softirq_ns: 'Soft IRQ Time',
  steal_ns: 'Steal Time' };
function cpuStatGroups(tracks, cpuOf, node) {
  const groups = new Map();
  const all = [...cpuOf].map(([id, cpu]) => [tracks.get(id), cpu]).filter(([tr]) => tr && tr.type === 'cpustat' && tr.count > 0);
  all.sort((a, b) => a[1] - b[1] || a[0].id - b[0].id);
  for (const [tr, cpu] of all) {
    const metric = (tr.name || '').replace(/^cpu\.times\./, '');
    const name = CPU_TIMES[metric] || metric;
    if (!groups.has(name)) groups.set(name, node(`g-cpustat-${metric}`, name, 'header', { h: HEADER_H }));
    groups.get(name).children.push(node(`k${tr.id}`, `${name} (CPU ${cpu})`, 'counter', { track: tr, h: COUNTER_H }));
  }
  const order = Object.values(CPU_TIMES);
  return [...groups.values()].sort((a, b) => (order.indexOf(a.label) + 1 || 99) - (order.indexOf(b.label) + 1 || 99));
}

// Global counters of the system probes as Perfetto's standard groups hold them: `meminfo` and
// `vmstat` in Memory (a subgroup each), `num_forks` in System. Returns [group nodes (made with
// `node`, keyed `g-...`), the other tracks of `global`].
const STANDARD = { meminfo: ['Memory', 'Meminfo'], vmstat: ['Memory', 'vmstat'], num_forks: ['System', null] };
function standardGroups(global, node) {
  const tops = new Map(), subs = new Map(), rest = [];
  for (const tr of global) {
    const where = tr.isCounter && tr.count > 0 ? STANDARD[tr.type] : null;
    if (!where) { rest.push(tr); continue; }
    const [top, sub] = where;
    if (!tops.has(top)) tops.set(top, node(`g-${top.toLowerCase()}`, top, 'header', { h: HEADER_H }));
    let g = tops.get(top);
    if (sub) {
      if (!subs.has(sub)) { subs.set(sub, node(`g-${top.toLowerCase()}-${sub.toLowerCase()}`, sub, 'header', { h: HEADER_H })); g.children.push(subs.get(sub)); }
      g = subs.get(sub);
    }
    g.children.push(node(`k${tr.id}`, tr.name || tr.type, 'counter', { track: tr, h: COUNTER_H }));
  }
  return [[...tops.values()], rest];
}

// Slice tracks under a node (itself included), for a collapsed group's summary: at most `cap`.
function treeSliceTracks(n, cap = 256) {
  const out = [];
  const walk = (x) => {
    if (out.length >= cap) return;
    if (x.members) for (const m of x.members) out.push(m.track.id);
    x.children.forEach(walk);
  };
  walk(n);
  return out.slice(0, cap);
}

// A collapsed process's scheduling, as Perfetto's process summary shows it when there is
// scheduling data: {utids (its threads with states), cpus ([{id, cpu}], the CPU tracks, one lane
// each)}, or null when its threads have no states or there are no CPU tracks.
function treeProcessSched(p) {
  const utids = new Set(p.threads.filter((th) => th.stateTrack !== undefined).map((th) => th.utid));
  return utids.size && tree.cpuTracks.length ? { utids, cpus: tree.cpuTracks } : null;
}

function treeMatches(n, f) {
  return n.label.toLowerCase().includes(f) || n.children.some((c) => treeMatches(c, f));
}

// The rows to draw: pinned nodes first (row.pinned, y from the top of the pinned band), then the
// tree with collapsed nodes' children left out and, under a filter, only the nodes whose label
// or a descendant's matches (a matching group shows all of its children). A collapsed group with
// slice tracks under it gets a summary's height.
function treeRows() {
  const out = [];
  let y = 0;
  const push = (n, indent, pinned) => {
    const collapsed = tree.collapsed.has(n.key) && n.children.length > 0;
    const summary = collapsed && n.kind === 'header' ? treeSliceTracks(n) : null;
    const sched = collapsed && n.process ? treeProcessSched(n.process) : null;
    const h = (summary && summary.length) || sched ? SUMMARY_H : n.h;
    out.push({ node: n, key: n.key, kind: n.kind, label: n.label, indent, y, h, track: n.track || null,
      members: n.members || null, pinned, collapsed, collapsible: n.children.length > 0,
      summary: summary && summary.length ? summary : null, sched });
    y += h;
  };
  for (const key of tree.pinned) {
    const n = tree.byKey.get(key);
    if (n) push(n, 0, true);
  }
  const pinnedH = y;
  y = 0;
  const f = tree.filter;
  const walk = (n, indent, all) => {
    if (!all && f && !treeMatches(n, f)) return;
    if (!tree.pinned.includes(n.key)) push(n, indent, false);
    if (tree.collapsed.has(n.key) && !f) return;
    const showAll = all || (f && n.label.toLowerCase().includes(f));
    for (const c of n.children) walk(c, indent + 1, showAll);
  };
  for (const r of tree.roots) walk(r, 0, false);
  return { rows: out, pinnedH, contentH: y };
}

function treeToggle(key) {
  if (tree.collapsed.has(key)) tree.collapsed.delete(key);
  else tree.collapsed.add(key);
}

function treePin(key) {
  const i = tree.pinned.indexOf(key);
  if (i >= 0) tree.pinned.splice(i, 1);
  else tree.pinned.push(key);
}

// Expands the groups above the node holding track `id`. Returns whether anything changed.
function treeReveal(id) {
  let changed = false;
  const walk = (n, path) => {
    if (n.members && n.members.some((m) => m.track.id === id)) {
      for (const p of path) if (tree.collapsed.delete(p.key)) changed = true;
      return true;
    }
    if (n.track && n.track.id === id) return walk({ members: [{ track: n.track }] }, path);
    return n.children.some((c) => walk(c, path.concat([n])));
  };
  tree.roots.some((r) => walk(r, []));
  return changed;
}
