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
  slices(ids, r) {
    return this.get('api/slices', { tracks: ids.join(','), start: r.start, end: r.end, px: r.px });
  }
  counters(ids, r) {
    return this.get('api/counters', { tracks: ids.join(','), start: r.start, end: r.end, px: r.px });
  }
  flows(r) { return this.get('api/flows', { start: r.start, end: r.end }); }
  alerts() { return this.get('api/alerts'); }
  details(id) { return this.get('api/slice', { id }); }
  search(q) { return this.get('api/search', { q }); }

  async query(sql) {
    // The custom header is what lets the server tell this page from a cross-site form.
    const r = await fetch('api/query', {
      method: 'POST', headers: { 'X-Trak-Request': '1', 'Content-Type': 'text/plain' }, body: sql,
    });
    const body = await r.json();
    if (!r.ok) throw new Error(body.error || r.statusText);
    return body;
  }
}

// Column of a timestamp at a range's resolution; -1 for one before the range.
function columnOf(ts, r) { return ts < r.start ? -1 : Math.floor((ts - r.start) / r.px); }

class EmbeddedBackend {
  constructor(data) {
    this.d = data;
    this.mode = 'html';
  }

  async tracks() { return this.d.tracks; }
  async alerts() { return this.d.alerts; }

  // Entries [depth, ts, dur, id, name, count] overlapping r, merged per depth and column: the
  // longest stands for the others, as the server does.
  async slices(ids, r) {
    const out = {};
    for (const id of ids) {
      const merged = [];
      const last = new Map(); // depth -> [entry, column]
      for (const e of this.d.slices[id] || []) {
        const [depth, ts, dur] = e;
        if (ts > r.end || (dur >= 0 && ts + dur < r.start)) continue;
        const col = columnOf(ts, r);
        const prev = last.get(depth);
        if (prev && prev[1] === col) {
          const p = prev[0];
          p[5] += e[5];
          if (dur > p[2] || dur < 0) { p[1] = ts; p[2] = dur; p[3] = e[3]; p[4] = e[4]; }
        } else {
          const copy = e.slice();
          merged.push(copy);
          last.set(depth, [copy, col]);
        }
      }
      out[id] = merged;
    }
    return out;
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
    for (const [track, entries] of Object.entries(this.d.slices)) {
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

  async search(q) {
    const needle = q.toLowerCase();
    const rows = [];
    for (const [track, entries] of Object.entries(this.d.slices)) {
      for (const e of entries) {
        if (e[4] && e[4].toLowerCase().includes(needle)) rows.push([e[3], e[1], e[2], Number(track), e[0]]);
      }
    }
    rows.sort((a, b) => a[1] - b[1] || a[0] - b[0]);
    return { rows: rows.slice(0, 10000), truncated: rows.length > 10000 };
  }

  async query() { throw new Error('SQL needs the trace: open it with `trak ui`'); }
}
