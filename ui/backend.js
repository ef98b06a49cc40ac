// Where the viewer's data comes from. ServerBackend asks `trak ui`'s server; EmbeddedBackend
// answers from the data `trak html` inlined (window.TRAK_DATA), re-summarising it to the screen's
// resolution. Both answer the same questions in the same shapes (src/ui/ui.h documents them).
'use strict';

class ServerBackend {
  constructor() { this.mode = 'ui'; }

  async get(path, params = {}) {
    const url = new URL(path, location.href);
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, String(v));
    const r = await fetch(url);
    const body = await r.json();
    if (!r.ok) throw new Error(body.error || r.statusText);
    return body;
  }

  tracks() { return this.get('api/tracks'); }
  info() { return this.get('api/info'); } // {name, events, max_open}
  slices(ids, r) {
    return this.get('api/slices', { tracks: ids.join(','), start: r.start, end: r.end, px: r.px });
  }
  counters(ids, r) {
    return this.get('api/counters', { tracks: ids.join(','), start: r.start, end: r.end, px: r.px });
  }
  // The CPU tracks `ids` holding only the slices of threads `utids`: a process's scheduling.
  sched(ids, utids, r) {
    return this.get('api/sched', { tracks: ids.join(','), utids: utids.join(','), start: r.start, end: r.end, px: r.px });
  }
  flows(r) { return this.get('api/flows', { start: r.start, end: r.end }); }
  // The minimap's events beginning per bucket of r.px ns from r.start: [count...].
  density(r) { return this.get('api/density', { start: r.start, end: r.end, px: r.px }); }
  alerts() { return this.get('api/alerts'); }
  details(id) { return this.get('api/slice', { id }); }
  search(q) { return this.get('api/search', { q }); }
  aggregate(ids, r) { return this.get('api/aggregate', { tracks: ids.join(','), start: r.start, end: r.end }); }
  flamegraph(ids, r) { return this.get('api/flamegraph', { tracks: ids.join(','), start: r.start, end: r.end }); }
  // A thread state's or CPU slice's details (what: 'thread_state' or 'sched'): {columns, rows}.
  row(what, id) { return this.get('api/row', { what, id }); }

  // The custom header is what lets the server tell this page from a cross-site form.
  async post(path, body) {
    const r = await fetch(path, {
      method: 'POST', headers: { 'X-Trak-Request': '1', 'Content-Type': 'text/plain' }, body,
    });
    const answer = await r.json();
    if (!r.ok) throw new Error(answer.error || r.statusText);
    return answer;
  }

  // A page of 10000 rows from `offset`: {columns, rows, truncated, offset}.
  query(sql, offset = 0) { return this.post(`api/query?offset=${offset}`, sql); }
  cancel() { return this.post('api/cancel', ''); }
  // Sends a trace (a File) for the server to import and serve instead of the current one.
  open(file) { return this.post(`api/open?name=${encodeURIComponent(file.name)}`, file); }
}

// Column of a timestamp at a range's resolution; -1 for one before the range.
function columnOf(ts, r) { return ts < r.start ? -1 : Math.floor((ts - r.start) / r.px); }

class EmbeddedBackend {
  constructor(data) {
    this.d = data;
    this.mode = 'html';
    // The CPU and thread-state tracks: their entries are not slices of the slice table.
    this.states = new Set((data.tracks.thread_states || []).map((x) => x[0]));
    this.system = new Set([...this.states, ...(data.tracks.cpus || []).map((x) => x[0])]);
  }

  // The slice tracks' entries, [track id, entries] (the system tracks left out).
  sliceEntries() { return Object.entries(this.d.slices).filter(([t]) => !this.system.has(Number(t))); }

  async tracks() { return this.d.tracks; }
  async info() { return { name: this.d.title, events: null, max_open: 0 }; }
  async alerts() { return this.d.alerts; }

  // Entries [depth, ts, dur, id, name, count] overlapping r, merged per depth and column: the
  // longest stands for the others, as the server does.
  async slices(ids, r) {
    const out = {};
    for (const id of ids) out[id] = this.merged(this.d.slices[id] || [], r);
    return out;
  }

  // The CPU tracks `ids` holding only the slices of threads `utids` (a CPU entry's utid is its
  // 7th), merged as slices() merges.
  async sched(ids, utids, r) {
    const want = new Set(utids), out = {};
    for (const id of ids) out[id] = this.merged((this.d.slices[id] || []).filter((e) => want.has(e[6])), r);
    return out;
  }

  // Entries overlapping r merged per depth and column: the longest stands for the column (all
  // of its fields: a CPU entry's utid, a state's CPU and io_wait), its count the column's.
  merged(entries, r) {
    const merged = [];
    const last = new Map(); // depth -> [entry, column]
    for (const e of entries) {
      const [depth, ts, dur] = e;
      if (ts > r.end || (dur >= 0 && ts + dur < r.start)) continue;
      const col = columnOf(ts, r);
      const prev = last.get(depth);
      if (prev && prev[1] === col) {
        const p = prev[0];
        p[5] += e[5];
        if (dur > p[2] || dur < 0) for (let k = 1; k < e.length; k++) if (k !== 5) p[k] = e[k];
      } else {
        const copy = e.slice();
        merged.push(copy);
        last.set(depth, [copy, col]);
      }
    }
    return merged;
  }

  // Entries [ts, min, max, last]: the one in force at r.start, those inside, the next after.
  async counters(ids, r) {
    const out = {};
    for (const id of ids) {
      const all = this.d.counters[id] || [];
      const merged = [];
      let before = null, after = null, col = null;
      for (const e of all) {
        if (e[0] < r.start) { before = e; continue; }
        if (e[0] > r.end) { after = after || e; continue; }
        const c = columnOf(e[0], r);
        const p = merged[merged.length - 1];
        if (p && c === col) {
          p[1] = Math.min(p[1], e[1]); p[2] = Math.max(p[2], e[2]); p[3] = e[3];
        } else {
          merged.push(e.slice());
          col = c;
        }
      }
      if (before) merged.unshift(before);
      if (after) merged.push(after);
      out[id] = merged;
    }
    return out;
  }

  // The density inlined at a finer resolution, each of its buckets summed into the one of r
  // holding its start.
  async density(r) {
    const d = this.d.density, out = new Array(Math.floor((r.end - r.start) / r.px) + 1).fill(0);
    if (!d) return out;
    d.counts.forEach((n, i) => {
      const t = d.start + i * d.px;
      if (n && t >= r.start && t <= r.end) out[Math.floor((t - r.start) / r.px)] += n;
    });
    return out;
  }

  async flows(r) {
    return this.d.flows.filter((f) => {
      const a = f[2] + Math.max(f[3], 0), b = f[7];
      return Math.min(a, b) <= r.end && Math.max(a, b) >= r.start;
    });
  }

  // The details inlined for the longest slices; for the others, what the timeline knows.
  async details(id) {
    const d = this.d.details[id];
    if (d) return d;
    for (const [track, entries] of this.sliceEntries()) {
      const e = entries.find((x) => x[3] === id);
      if (e) {
        return {
          slice: [id, e[1], e[2], e[4], null, e[0], Number(track), null, null, null],
          args: [], description: null, doc_link: null, ancestors: [], flows_out: [], flows_in: [],
          partial: true,
        };
      }
    }
    throw new Error(`slice ${id} is not in this report`);
  }

  // Slices by name, arg value or id: the server's SQL on the report's tables when it has them
  // (every slice and arg), else the names (and ids) of the slices in the file and the args of
  // those with details inlined.
  async search(q) {
    if (window.TRAK_SQL) {
      if (!this.db) this.db = openEmbeddedDb(window.TRAK_SQL);
      const like = `'%${q.replace(/[%_\\]/g, (c) => `\\${c}`).replace(/'/g, "''")}%' ESCAPE '\\'`;
      let sql = `SELECT id, ts, dur, track_id, depth FROM slice WHERE name LIKE ${like} OR arg_set_id IN ` +
        `(SELECT arg_set_id FROM args WHERE display_value LIKE ${like})`;
      sql += /^\s*[+-]?\d+$/.test(q) ? ` OR id = ${Number(q)} ORDER BY id = ${Number(q)} DESC, ts, id` : ' ORDER BY ts, id';
      const r = await queryPage(await this.db, sql, 0, 10000);
      return { rows: r.rows, truncated: r.truncated };
    }
    const needle = q.toLowerCase();
    const rows = [];
    for (const [track, entries] of this.sliceEntries()) {
      for (const e of entries) {
        const d = this.d.details[e[3]];
        if ((e[4] && e[4].toLowerCase().includes(needle)) || String(e[3]) === q ||
            (d && d.args.some((a) => String(a[1]).toLowerCase().includes(needle)))) rows.push([e[3], e[1], e[2], Number(track), e[0]]);
      }
    }
    rows.sort((a, b) => a[1] - b[1] || a[0] - b[0]);
    return { rows: rows.slice(0, 10000), truncated: rows.length > 10000 };
  }

  // The area selection from the slices in the file (all of them unless it says it summarised):
  // as the server's answers, with a child found by time one depth down instead of parent_id.
  selected(ids, r, fn) {
    for (const id of ids.filter((x) => !this.system.has(x))) {
      const byDepth = [];
      for (const e of this.d.slices[id] || []) (byDepth[e[0]] = byDepth[e[0]] || []).push(e);
      const kids = (e) => (byDepth[e[0] + 1] || []).filter((c) => c[1] >= e[1] && (c[1] < e[1] + e[2] || c[1] === e[1]) && c[2] >= 0);
      const inRange = (e) => e[2] >= 0 && e[1] <= r.end && e[1] + e[2] >= r.start;
      fn(byDepth, kids, inRange);
    }
  }

  async aggregate(ids, r) {
    const by = new Map();
    this.selected(ids, r, (byDepth, kids, inRange) => {
      for (const line of byDepth) for (const e of line || []) {
        if (!inRange(e)) continue;
        const a = by.get(e[4]) || [e[4], 0, 0, 0, 0];
        a[1]++; a[2] += e[2]; a[4] += e[2] - kids(e).reduce((s, c) => s + c[2], 0);
        by.set(e[4], a);
      }
    });
    const slices = [...by.values()].map((a) => [a[0], a[1], a[2], a[2] / a[1], a[4]]);
    slices.sort((a, b) => b[2] - a[2] || String(a[0]).localeCompare(String(b[0])));
    const counters = [];
    for (const id of ids) {
      const v = (this.d.counters[id] || []).filter((e) => e[0] >= r.start && e[0] <= r.end);
      if (!v.length) continue;
      counters.push([id, v.length, Math.min(...v.map((e) => e[1])), Math.max(...v.map((e) => e[2])),
        v.reduce((s, e) => s + e[3], 0) / v.length, v[v.length - 1][3] - v[0][3]]);
    }
    return { slices, counters, thread_states: this.stateSums(ids, r), cpus: this.cpuSums(ids, r), cpu_threads: this.cpuThreads(ids, r) };
  }

  // Time each thread ran on the selected CPU tracks, as the server's trak__ui_cpu_sums
  // (cpu_threads): [[utid, slices, busy]...], most first.
  cpuThreads(ids, r) {
    const by = new Map(), cpus = new Set((this.d.tracks.cpus || []).map(([id]) => id));
    for (const id of ids.filter((x) => cpus.has(x))) {
      for (const [, ts, dur, , , , utid] of this.d.slices[id] || []) {
        const e = dur < 0 ? r.end : ts + dur;
        if (ts >= r.end || e <= r.start) continue;
        const a = by.get(utid) || [utid, 0, 0];
        a[1]++; a[2] += Math.min(e, r.end) - Math.max(ts, r.start);
        by.set(utid, a);
      }
    }
    return [...by.values()].sort((a, b) => b[2] - a[2] || a[0] - b[0]);
  }

  // Time busy on each selected CPU track, as the server's trak__ui_cpu_sums.
  cpuSums(ids, r) {
    const cpuOf = new Map((this.d.tracks.cpus || []).map(([id, cpu]) => [id, cpu]));
    return ids.filter((id) => cpuOf.has(id)).map((id) => {
      let n = 0, busy = 0;
      for (const [, ts, dur] of this.d.slices[id] || []) {
        const e = dur < 0 ? r.end : ts + dur;
        if (ts >= r.end || e <= r.start) continue;
        n++; busy += Math.min(e, r.end) - Math.max(ts, r.start);
      }
      return [cpuOf.get(id), n, busy];
    });
  }

  // Time per state of the selected thread-state tracks, as the server's trak__ui_state_sums.
  stateSums(ids, r) {
    const by = new Map();
    for (const id of ids.filter((x) => this.states.has(x))) {
      for (const [, ts, dur, , state, , , io] of this.d.slices[id] || []) {
        const e = dur < 0 ? r.end : ts + dur;
        if (ts >= r.end || e <= r.start) continue;
        const key = `${state}\u0000${io}`, a = by.get(key) || [state, 0, 0, io ?? null];
        a[1]++; a[2] += Math.min(e, r.end) - Math.max(ts, r.start);
        by.set(key, a);
      }
    }
    const io = (x) => (x === null ? -1 : x);
    return [...by.values()].sort((a, b) => b[2] - a[2] || String(a[0]).localeCompare(String(b[0])) || io(a[3]) - io(b[3]));
  }

  // A thread state's or CPU slice's details: the server's SQL (inlined) on the report's tables.
  async row(what, id) {
    if (!this.db) this.db = openEmbeddedDb(window.TRAK_SQL);
    return queryPage(await this.db, this.d.queries[what].split('?').join(String(Number(id))), 0, 1);
  }

  async flamegraph(ids, r) {
    const nodes = [], index = new Map();
    const add = (e, parent, kids, inRange) => {
      const key = `${parent}\u0000${e[4]}`;
      let n = index.get(key);
      if (n === undefined) { n = nodes.length; nodes.push([parent, e[4], 0, 0]); index.set(key, n); }
      nodes[n][2] += e[2]; nodes[n][3]++;
      for (const c of kids(e)) if (inRange(c)) add(c, n, kids, inRange);
    };
    this.selected(ids, r, (byDepth, kids, inRange) => {
      for (const e of byDepth[0] || []) if (inRange(e)) add(e, -1, kids, inRange);
    });
    return nodes;
  }

  // SQL over the trace's tables, which `trak html` exported into the file (window.TRAK_SQL),
  // run by sql.js (SQLite in WebAssembly, inlined too). The database opens on the first query.
  // A query runs on the page's thread: it cannot be cancelled.
  async cancel() { return { cancelled: false }; }
  async query(sql, offset = 0) {
    if (!this.db) this.db = openEmbeddedDb(window.TRAK_SQL);
    return queryPage(await this.db, sql, offset, 10000);
  }
}

// Bytes of gzip'ed base64 text, unzipped by the browser (no request is made).
async function gunzipBase64(text) {
  const bin = atob(text), bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

// The sql.js database of a report's tables, or an error saying why the report has none.
async function openEmbeddedDb(s) {
  if (!s || s.error || typeof initSqlJs !== 'function') {
    throw new Error((s && s.error) || 'this report has no tables: open the trace with `trak ui` for SQL');
  }
  const SQL = await initSqlJs({ wasmBinary: await gunzipBase64(s.wasm) });
  return new SQL.Database(await gunzipBase64(s.db));
}

// Runs every statement of `sql` in order and answers a page of the last one's rows, as the
// server's /api/query does: {columns, rows, truncated, offset}; the first that fails ends it.
function queryPage(db, sql, offset, limit) {
  let columns = [], rows = [], truncated = false, n = 0, stepping = false;
  try {
    for (const st of db.iterateStatements(sql)) {
      n++;
      stepping = true;
      columns = st.getColumnNames();
      rows = [];
      truncated = false;
      let skip = offset;
      while (st.step()) {
        if (skip > 0) { skip--; continue; }
        if (rows.length === limit) { truncated = true; break; }
        rows.push(st.get().map((v) => (v instanceof Uint8Array ? `<${v.length} bytes>` : v)));
      }
      stepping = false;
    }
  } catch (e) {
    throw new Error(`statement ${stepping ? n : n + 1}: ${e.message || e}`);
  }
  if (!n) throw new Error('no SQL statement');
  return { columns, rows, truncated, offset };
}
