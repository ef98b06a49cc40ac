// Browser tests of the viewer's system tracks (CPU scheduling slices, thread states, CPU
// counters) on a checked-in systrace text trace (tests/data/systrace/ui_sched.systrace, so that no
// root is needed), in `trak ui` and in a `trak html` report, driven as a person would in Debian's
// chromium through playwright-core: expand a thread and see its state track, hover and click a
// state and see its waker, follow the waker, click a CPU slice, collapse a process and see its
// threads' scheduling on a lane per CPU, select an area and read the
// "Thread states" tab, whose sums equal the same SQL through `trak query`. Screenshots go to
// OUT_DIR (docs/ui.md shows them), each checked not to be blank.
//   node system_test.js TRAK TRACE OUT_DIR
'use strict';
const assert = require('node:assert/strict');
const path = require('node:path');
const common = require('./common.js');

const [trak, trace, outDir] = process.argv.slice(2);
const LABEL_W = 230, HEADER = 22;
const { state, settle } = common;
const query = (sql) => common.query(trak, trace, sql);
const screenshot = (page, name) => common.screenshot(page, path.join(outDir, name));

// The colour of the canvas pixel at (x, y) (CSS pixels; the tests run at a device ratio of 1).
const pixel = (page, x, y) => page.evaluate(([px, py]) => [...document.getElementById('timeline').getContext('2d')
  .getImageData(Math.round(px), Math.round(py), 1, 1).data].slice(0, 3).join(','), [x, y]);

// The tracks are laid out as Perfetto does: the CPUs first with their counters, then each
// thread with its state track under it; CPU slices are coloured by thread, the same on each CPU.
async function layout(page) {
  const s = await settle(page);
  const labels = s.rows.map((r) => r.label);
  const cpus = query('SELECT DISTINCT cpu FROM sched ORDER BY cpu').map((r) => `CPU ${r[0]}`);
  assert.deepEqual(labels.slice(0, 1 + cpus.length * 3), ['CPUs', ...cpus.flatMap((c) => [c, `${c} frequency`, `${c} idle state`])]);
  const threads = query('SELECT DISTINCT utid FROM thread_state ORDER BY utid').map((r) => Number(r[0]));
  assert.deepEqual(s.rows.filter((r) => r.kind === 'state').map((r) => r.utid).sort((a, b) => a - b), threads);
  for (const r of s.rows.filter((x) => x.kind === 'state')) {
    const own = s.rows.find((x) => x.key === `t${r.utid}`);
    assert.ok(own && own.y < r.y, `thread ${r.utid}'s row comes before its state row`);
  }
  const sched = s.slices.filter((x) => x.kind === 'sched' && x.w >= 4 && x.count === 1);
  assert.ok(sched.length > 20, `${sched.length} CPU slices drawn`);
  assert.ok(s.counters.some((c) => /^CPU 0 frequency$/.test(c.name) && c.axis[1] === 2400000));
  // The same thread, the same colour on both CPUs; another thread, another colour.
  const colour = (x) => pixel(page, x.x + 2, x.y + x.h - 2);
  const byThread = new Map();
  for (const x of sched) byThread.set(x.utid, [...(byThread.get(x.utid) || []), x]);
  const both = [...byThread.values()].find((v) => new Set(v.map((x) => x.cpu)).size === 2);
  assert.ok(both, 'a thread ran on both CPUs');
  const a = both.find((x) => x.cpu === 0), b = both.find((x) => x.cpu === 1);
  assert.equal(await colour(a), await colour(b));
  const other = sched.find((x) => x.utid !== a.utid);
  assert.notEqual(await colour(other), await colour(a));
  // Thread states in Perfetto's colours: Running dark green, Runnable lime.
  const running = s.slices.find((x) => x.kind === 'state' && x.state === 'Running' && x.w >= 4 && x.count === 1);
  assert.equal(await colour(running), '49,125,49');
  await screenshot(page, 'ui-system.png');
  return s;
}

// A thread's row collapses (its state row goes) and expands again (it comes back).
async function expandThread(page, box) {
  let s = await settle(page);
  const thread = s.rows.find((r) => r.key.startsWith('t') && r.collapsible);
  const utid = Number(thread.key.slice(1));
  await page.mouse.click(box.x + 60, box.y + thread.top + 8);
  s = await settle(page);
  assert.ok(s.rows.find((r) => r.key === thread.key).collapsed);
  assert.ok(!s.rows.some((r) => r.key === `s${utid}`), 'state row hidden under its collapsed thread');
  await page.mouse.click(box.x + 60, box.y + thread.top + 8);
  s = await settle(page);
  const st = s.rows.find((r) => r.key === `s${utid}`);
  assert.ok(st && st.label === 'Thread state');
  assert.ok(s.slices.some((x) => x.kind === 'state' && x.row === st.key));
}

// Hover, click a runnable state woken by another thread: its details name the waker (as the
// thread_state table does); the waker link selects the waker's own state.
async function wakerDetails(page, box) {
  let s = await settle(page);
  const woken = query('SELECT s.id, w.tid, w.name, s.waker_id, s.utid FROM thread_state s JOIN thread w ON w.utid = s.waker_utid WHERE s.waker_id IS NOT NULL ORDER BY s.dur DESC LIMIT 40');
  const drawnState = s.slices.find((x) => x.kind === 'state' && x.count === 1 && x.w > 6 && woken.some((r) => Number(r[0]) === x.id));
  assert.ok(drawnState, 'a woken state on screen');
  const [, wtid, wname, wakerId] = woken.find((r) => Number(r[0]) === drawnState.id);
  await page.mouse.move(box.x + drawnState.x + drawnState.w / 2, box.y + drawnState.y + 6);
  await page.waitForSelector('#tooltip:not([hidden])');
  const tip = await page.textContent('#tooltip');
  assert.ok(tip.startsWith('Runnable') && /\d (ns|us|ms)/.test(tip), tip);
  await page.mouse.click(box.x + drawnState.x + drawnState.w / 2, box.y + drawnState.y + 6);
  await page.waitForSelector('#waker');
  const waker = await page.textContent('#waker');
  assert.ok(waker.includes(`Waker${wname} ${wtid}`), waker);
  assert.equal((await state(page)).system.id, drawnState.id);
  await screenshot(page, 'ui-thread-state.png');
  await page.click('#waker a[data-state]');
  await page.waitForFunction((id) => window.trakViewer.state().system?.id === id, Number(wakerId));
  await page.waitForFunction(() => document.querySelector('#details h2')?.textContent === 'Running');
  const cpu = query(`SELECT cpu FROM thread_state WHERE id = ${wakerId}`)[0][0];
  assert.ok((await page.textContent('#state-details')).includes(`CPU${cpu}`));
  // A Running state's tooltip says the CPU it ran on.
  s = await settle(page);
  const run = s.slices.find((x) => x.kind === 'state' && x.state === 'Running' && x.w > 6 && x.count === 1);
  await page.mouse.move(box.x + run.x + run.w / 2, box.y + run.y + 6);
  await page.waitForFunction((c) => document.getElementById('tooltip').textContent.startsWith(`Running on CPU ${c}`), run.cpu);
  // A CPU slice: its thread, process and end state.
  const sched = s.slices.find((x) => x.kind === 'sched' && x.w > 6 && x.count === 1);
  await page.mouse.click(box.x + sched.x + sched.w / 2, box.y + sched.y + 6);
  await page.waitForSelector('#sched-details');
  const [tid, name] = query(`SELECT t.tid, t.name FROM sched s JOIN thread t USING (utid) WHERE s.id = ${sched.id}`)[0];
  assert.ok((await page.textContent('#sched-details')).includes(`Thread${name} ${tid}`));
  await page.keyboard.press('Escape');
}

// A process collapsed shows its scheduling as Perfetto's process summary does: a lane per CPU with
// the CPU slices of its threads (those of `sched`, each the colour its thread has on the CPU
// tracks); hovering one names the thread. Expanding the process brings its threads back.
async function processSched(page, box, shots) {
  let s = await settle(page);
  const proc = s.rows.find((r) => r.key.startsWith('p') && !r.collapsed && r.collapsible);
  await page.mouse.click(box.x + 60, box.y + proc.top + 8);
  s = await settle(page);
  const row = s.rows.find((r) => r.key === proc.key);
  assert.ok(row.collapsed && row.sched, JSON.stringify(row));
  const cpus = query('SELECT count(DISTINCT cpu) FROM sched')[0][0];
  const sum = s.summaries.find((x) => x.key === proc.key);
  assert.ok(sum && sum.sched && sum.lanes === Number(cpus) && sum.slices > 0, JSON.stringify(sum));
  const mine = s.slices.filter((x) => x.kind === 'sched' && x.row === proc.key);
  assert.equal(mine.length, sum.slices);
  const upid = proc.key.slice(1);
  const rows = new Map(query(`SELECT s.id, s.utid, s.cpu FROM sched s JOIN thread t USING (utid) WHERE t.upid = ${upid}`)
    .map(([id, utid, cpu]) => [Number(id), [Number(utid), Number(cpu)]]));
  for (const x of mine) assert.deepEqual(rows.get(x.id), [x.utid, x.cpu], `summary slice ${x.id}`);
  // Summarised among the process's threads alone: each lane's entries stand for every one of
  // its slices on that CPU (the whole trace is on screen), none lost to another process's.
  assert.equal(s.end - s.start, s.traceEnd - s.traceStart);
  for (const [cpu, n] of query(`SELECT s.cpu, count(*) FROM sched s JOIN thread t USING (utid) WHERE t.upid = ${upid} GROUP BY s.cpu`))
    assert.equal(mine.filter((x) => x.cpu === Number(cpu)).reduce((a, x) => a + x.count, 0), Number(n), `CPU ${cpu}`);
  // The lane of CPU N is the N-th from the top, and a thread has its CPU tracks' colour there.
  const wide = mine.filter((x) => x.w >= 4 && x.count === 1).sort((a, b) => b.w - a.w)[0];
  assert.ok(wide, 'a summary slice wide enough to point at');
  const onCpu = s.slices.find((x) => x.kind === 'sched' && !x.summary && x.utid === wide.utid && x.w >= 4);
  const colour = (x) => pixel(page, x.x + 2, x.y + 2);
  if (onCpu) assert.equal(await colour(wide), await colour(onCpu));
  const lanes = [...new Set(mine.map((x) => x.cpu))].sort((a, b) => a - b);
  for (const c of lanes) {
    const ys = new Set(mine.filter((x) => x.cpu === c).map((x) => x.y));
    assert.equal(ys.size, 1, `one lane for CPU ${c}`);
  }
  await page.mouse.move(box.x + wide.x + wide.w / 2, box.y + wide.y + 2);
  await page.waitForFunction((n) => document.getElementById('tooltip').textContent.startsWith(n), wide.name);
  if (shots) await screenshot(page, 'ui-process-sched.png');
  // A click shows that CPU slice's details, as on the CPU track.
  await page.mouse.click(box.x + wide.x + wide.w / 2, box.y + wide.y + 2);
  await page.waitForSelector('#sched-details');
  await page.waitForFunction((id) => window.trakViewer.state().system?.id === id, wide.id);
  const [tid, tname, cpu] = query(`SELECT t.tid, t.name, s.cpu FROM sched s JOIN thread t USING (utid) WHERE s.id = ${wide.id}`)[0];
  const text = await page.textContent('#sched-details');
  assert.ok(text.includes(`Thread${tname} ${tid}`) && text.includes(`CPU${cpu}`), text);
  await page.keyboard.press('Escape');
  await page.mouse.click(box.x + 60, box.y + proc.top + 8);
  s = await settle(page);
  assert.ok(!s.rows.find((r) => r.key === proc.key).collapsed);
  assert.ok(!s.summaries.some((x) => x.key === proc.key));
}

// Drag over the threads of the first process: the "Thread states" tab sums each state's time in
// the range, as the same SQL does.
async function threadStates(page, box) {
  let s = await settle(page);
  const proc = s.rows.find((r) => r.key.startsWith('p'));
  const mine = s.rows.filter((r) => r.kind === 'state' && r.top > proc.top && r.top < proc.top + 300);
  const last = mine[mine.length - 1];
  const x0 = box.x + LABEL_W + 150, x1 = box.x + box.width - 250;
  await common.drag(page, x0, box.y + proc.top + HEADER + 4, x1, box.y + last.top + 8);
  await page.waitForSelector('button[data-tab=states]');
  await page.click('button[data-tab=states]');
  await page.waitForSelector('#agg-states');
  s = await state(page);
  const a = s.area;
  const utids = s.rows.filter((r) => r.kind === 'state' && a.tracks.includes(r.track)).map((r) => r.utid);
  assert.ok(utids.length >= 2, JSON.stringify(a));
  const sql = query(`SELECT state, count(*), sum(min(CASE WHEN dur < 0 THEN ${a.end} ELSE ts + dur END, ${a.end}) - max(ts, ${a.start})), ` +
    `coalesce(io_wait, 'null') FROM thread_state WHERE utid IN (${utids}) AND ts < ${a.end} AND (dur < 0 OR ts + dur > ${a.start}) ` +
    'GROUP BY state, io_wait ORDER BY state, io_wait');
  const key = (r) => `${r[0]} ${r[3]}`;
  const got = a.agg.thread_states.map((r) => r.map(String)).sort((p, q) => (key(p) < key(q) ? -1 : 1));
  assert.deepEqual(got, sql.sort((p, q) => (key(p) < key(q) ? -1 : 1)));
  assert.equal(await page.locator('#agg-states tr').count(), sql.length + 1);
  // Uninterruptible Sleep split as Perfetto's: blocked on IO, and not.
  const text = await page.textContent('#agg-states');
  assert.ok(text.includes('Uninterruptible Sleep (IO)') && text.includes('Uninterruptible Sleep (non-IO)'), text);
  await screenshot(page, 'ui-thread-states.png');
  await page.keyboard.press('Escape');
  return { area: a, sums: sql };
}

// The same trace as a `trak html` report: the same tracks, the waker from the tables in the
// file (sql.js), the same sums.
async function report(context) {
  const r = await common.openReport(context, trak, trace, path.join(outDir, 'report_system.html'));
  await layout(r.page);
  await processSched(r.page, r.box, false);
  await wakerDetails(r.page, r.box);
  await threadStates(r.page, r.box);
  r.noRequest();
  await screenshot(r.page, 'ui-html-system.png');
  await r.page.close();
}

common.withUi(trak, trace, outDir, async (context, url) => {
  const { page, box } = await common.openPage(context, url);
  await layout(page);
  await expandThread(page, box);
  await processSched(page, box, true);
  await wakerDetails(page, box);
  await threadStates(page, box);
  await page.close();
  await report(context);
  console.log(`ok: CPU and thread-state tracks in trak ui and trak html; screenshots in ${outDir}`);
}).catch((e) => {
  console.error(e);
  process.exit(1);
});
