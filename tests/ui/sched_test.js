// Browser tests of the viewer's CPU summaries on a checked-in systrace text trace
// (tests/data/systrace/ui_sched.systrace), in `trak ui` and in a `trak html` report, driven as a
// person would in Debian's chromium through playwright-core: open the collapsed Scheduler group
// (Perfetto's Active CPU count, Runnable thread count and Uninterruptible Sleep thread count),
// hover and click its counters, select an area over them whose Counters tab equals the same SQL
// over sched.thread_level_parallelism through `trak query`; select an area over the CPU tracks and
// read the "CPU by thread" and "CPU by process" tabs, equal to the same SQL over `sched`; click a
// CPU slice and see its wakeup and scheduling latency, and the waker overlay on the CPU tracks.
// Screenshots go to OUT_DIR (docs/ui.md shows them), each checked not to be blank.
//   node sched_test.js TRAK TRACE OUT_DIR
'use strict';
const assert = require('node:assert/strict');
const path = require('node:path');
const common = require('./common.js');

const { trak, trace, outDir, query, screenshot } = common.scriptArgs();
const { state, settle } = common;
const LABEL_W = 230;

const TLP = 'INCLUDE PERFETTO MODULE sched.thread_level_parallelism; ';
const COUNTS = [['Active CPU count', 'sched_active_cpu_count', 'active_cpu_count'],
  ['Runnable thread count', 'sched_runnable_thread_count', 'runnable_thread_count'],
  ['Uninterruptible Sleep thread count', 'sched_uninterruptible_sleep_thread_count', 'uninterruptible_sleep_thread_count']];

// The Scheduler group starts collapsed; a click on its label shows its three counters, whose
// y axes reach the tables' maxima; hovering one reads the value in force, a click selects it.
async function schedulerGroup(page, box, shots) {
  let s = await settle(page);
  const group = s.rows.find((r) => r.label === 'Scheduler');
  assert.ok(group && group.collapsed, JSON.stringify(group));
  assert.ok(!s.rows.some((r) => r.label === 'Active CPU count'), 'no counter row while collapsed');
  await page.mouse.click(box.x + 60, box.y + group.top + 8);
  s = await settle(page);
  const rows = s.rows.filter((r) => r.top > group.top && r.kind === 'counter').slice(0, 3);
  assert.deepEqual(rows.map((r) => r.label), COUNTS.map((c) => c[0]));
  for (const [name, table, col] of COUNTS) {
    const [max, min] = query(`${TLP}SELECT max(${col}), min(${col}) FROM ${table}`)[0].map(Number);
    const drawn = s.counters.find((c) => c.name === name);
    assert.ok(drawn && drawn.points > 10, JSON.stringify(drawn));
    assert.equal(drawn.max, max, name);
    assert.equal(drawn.min, min, name);
  }
  // Hover the active CPU count: the tooltip names it and its value; a click selects that value,
  // which is a value the table has in that pixel column.
  const active = rows[0];
  const cx = box.x + LABEL_W + (box.width - LABEL_W) * 0.4, cy = box.y + active.top + 25;
  await page.mouse.move(cx, cy);
  await page.waitForFunction(() => /^Active CPU count/.test(document.getElementById('tooltip').textContent));
  if (shots) await screenshot(page, 'ui-scheduler.png');
  await page.mouse.click(cx, cy);
  await page.waitForSelector('#counter-value');
  await page.waitForFunction(() => window.trakViewer.state().counter !== null);
  s = await state(page);
  assert.equal(s.counter.name, 'Active CPU count');
  const px = Math.ceil((s.end - s.start) / (box.width - LABEL_W)) + 1;
  const found = query(`${TLP}SELECT count(*) FROM sched_active_cpu_count WHERE ts >= ${s.counter.ts} AND ts < ${s.counter.ts + px} AND active_cpu_count = ${s.counter.value}`);
  assert.ok(Number(found[0][0]) > 0, `value ${s.counter.value} at ${s.counter.ts}`);
  assert.ok((await page.textContent('#counter-value')).includes(`Value${s.counter.value}`));
  await page.keyboard.press('Escape');
  return rows;
}

// An area over the three counters: the Counters tab equals the SQL over the tables (count, min,
// max, average of the values in the range).
async function schedulerArea(page, box, rows) {
  const a = await common.areaCounters(page, box, rows[0], rows[2], 200, 300);
  assert.equal(a.agg.counters.length, 3);
  for (const [i, [, table, col]] of COUNTS.entries()) {
    const [n, mn, mx, avg] = query(`${TLP}SELECT count(*), min(${col}), max(${col}), avg(${col}) FROM ${table} WHERE ts >= ${a.start} AND ts <= ${a.end}`)[0].map(Number);
    const got = a.agg.counters.find((c) => c[0] === rows[i].track);
    assert.ok(got, `${table} in the Counters tab`);
    assert.deepEqual(got.slice(1, 4), [n, mn, mx], table);
    assert.ok(Math.abs(got[4] - avg) < 1e-5 * Math.max(1, Math.abs(avg)), `${table}: ${got[4]} vs ${avg}`);
  }
  await page.keyboard.press('Escape');
}

// An area over both CPU tracks: "CPU by thread" and "CPU by process" list each thread's (and
// process's) time on those CPUs within the range, clipped to it, most first, as the SQL does.
async function cpuByThread(page, box, shots) {
  await common.dragRows(page, box, 'CPU 0', 'CPU 1', 150, 250);
  await page.waitForSelector('button[data-tab=cpu-threads]');
  await page.click('button[data-tab=cpu-threads]');
  await page.waitForSelector('#agg-cpu-threads');
  const s = await state(page), a = s.area;
  const cpus = s.rows.filter((r) => r.kind === 'sched').map((r) => r.track);
  assert.ok(cpus.length === 2 && cpus.every((id) => a.tracks.includes(id)), JSON.stringify(a.tracks));
  const part = `min(CASE WHEN dur < 0 THEN ${a.end} ELSE ts + dur END, ${a.end}) - max(ts, ${a.start})`;
  const where = `FROM sched WHERE cpu IN (0, 1) AND utid NOT IN (SELECT utid FROM thread WHERE is_idle) AND ts < ${a.end} AND (dur < 0 OR ts + dur > ${a.start})`;
  const byThread = query(`SELECT utid, count(*), sum(${part}) AS t ${where} GROUP BY utid ORDER BY t DESC, utid`);
  assert.ok(byThread.length >= 3);
  assert.deepEqual(a.agg.cpu_threads.map((r) => r.map(String)), byThread);
  assert.equal(await page.locator('#agg-cpu-threads tr').count(), byThread.length + 1);
  const [tid, tname] = query(`SELECT tid, name FROM thread WHERE utid = ${byThread[0][0]}`)[0];
  const first = await page.textContent('#agg-cpu-threads tr:nth-child(2)');
  assert.ok(first.includes(`${tname} ${tid}`) && first.endsWith(byThread[0][1]), first);
  if (shots) await screenshot(page, 'ui-cpu-by-thread.png');
  await page.click('button[data-tab=cpu-procs]');
  await page.waitForSelector('#agg-cpu-procs');
  const byProc = query(`SELECT t.upid, count(*), sum(${part.replace(/\b(ts|dur)\b/g, 's.$1')}) AS tt ` +
    `${where.replace('FROM sched', 'FROM sched s JOIN thread t USING (utid)').replace(/\b(ts|dur|cpu)\b/g, 's.$1')} GROUP BY t.upid ORDER BY tt DESC, coalesce(t.upid, -1)`);
  const cells = await page.$$eval('#agg-cpu-procs tr', (trs) => trs.slice(1).map((tr) => [...tr.children].map((td) => td.textContent)));
  assert.equal(cells.length, byProc.length);
  for (const [i, [upid, n]] of byProc.entries()) {
    assert.equal(cells[i][4], n, `process ${upid}: occurrences`);
    if (!['', 'NULL', '[NULL]'].includes(upid)) {
      const [pid] = query(`SELECT pid FROM process WHERE upid = ${upid}`)[0];
      assert.ok(cells[i][0].endsWith(` ${pid}`), `${cells[i][0]} is process ${pid}`);
    } else assert.equal(cells[i][0], '(no process)');
  }
  const share = cells.reduce((x, c) => x + Number(c[2]), 0);
  assert.ok(Math.abs(share - 100) < 0.5, `shares add up to ${share}`);
  if (shots) await screenshot(page, 'ui-cpu-by-process.png');
  await page.keyboard.press('Escape');
}

// A CPU slice whose thread was woken: its details give the wakeup (time, waker, the waker's CPU)
// and the scheduling latency, as Perfetto's sched details do; the timeline draws the waker
// overlay (a line at the wakeup, a diamond on the waker's CPU row, an arrow on the slice's row to
// its start); the waker link selects the waker's state.
async function cpuWakeup(page, box, shots) {
  const s = await settle(page);
  const woken = new Map(query('SELECT s.id, w.ts, ws.cpu, wt.tid, wt.name, w.waker_id, s.cpu, s.ts FROM sched s ' +
    "JOIN thread_state w ON w.utid = s.utid AND w.ts + w.dur = s.ts AND w.state = 'R' AND coalesce(w.irq_context, 0) = 0 " +
    'AND w.waker_id IS NOT NULL JOIN thread_state ws ON ws.id = w.waker_id JOIN thread wt ON wt.utid = w.waker_utid')
    .map((r) => [Number(r[0]), r]));
  const lat = (x) => Number(woken.get(x.id)[7]) - Number(woken.get(x.id)[1]);
  const sl = s.slices.filter((x) => x.kind === 'sched' && !x.summary && x.count === 1 && x.w > 6 && woken.has(x.id) &&
    Number(woken.get(x.id)[2]) !== x.cpu && x.x > LABEL_W + 60).sort((a, b) => lat(b) - lat(a))[0];
  assert.ok(sl, 'a CPU slice woken from the other CPU on screen');
  const [, wts, wcpu, wtid, wname, wakerId, cpu, ts] = woken.get(sl.id);
  await page.mouse.click(box.x + sl.x + sl.w / 2, box.y + sl.y + 6);
  await page.waitForSelector('#sched-latency');
  const text = await page.textContent('#sched-latency');
  assert.ok(text.includes(`Waker CPU${wcpu}`) && text.includes(`Waker${wname} ${wtid}`), text);
  assert.ok(text.includes(`(${Number(ts) - Number(wts)} ns)`), text);
  await page.waitForFunction(() => window.trakViewer.state().wakeup !== null);
  const w = (await state(page)).wakeup;
  assert.equal(w.ts, Number(wts));
  assert.equal(w.cpu, Number(wcpu));
  assert.equal(w.marker.row, `c${wcpu}`);
  assert.equal(w.arrow.row, `c${cpu}`);
  assert.ok(w.arrow.x1 >= w.arrow.x0);
  const px = await page.evaluate(([x, y]) => [...document.getElementById('timeline').getContext('2d')
    .getImageData(Math.round(x), Math.round(y), 1, 1).data].slice(0, 3), [w.marker.x, w.marker.y]);
  assert.ok(px.every((c) => c < 140), `the diamond is dark: ${px}`);
  await page.mouse.move(box.x + 100, box.y + 30); // no tooltip over the overlay
  await page.waitForSelector('#tooltip', { state: 'hidden' });
  if (shots) await screenshot(page, 'ui-sched-wakeup.png');
  await page.click('#sched-latency a[data-state]');
  await page.waitForFunction((id) => window.trakViewer.state().system?.id === id && window.trakViewer.state().system?.what === 'thread_state', Number(wakerId));
  // the overlay is the drawn state: gone at the next frame after the selection moved
  await page.waitForFunction(() => window.trakViewer.state().wakeup === null);
  assert.equal((await state(page)).wakeup, null);
  await page.keyboard.press('Escape');
}

common.withUi(trak, trace, outDir, async (context, url) => {
  const { page, box } = await common.openPage(context, url);
  const rows = await schedulerGroup(page, box, true);
  await schedulerArea(page, box, rows);
  await cpuByThread(page, box, true);
  await cpuWakeup(page, box, true);
  await page.close();
  const r = await common.openReport(context, trak, trace, path.join(outDir, 'report_sched.html'));
  const rrows = await schedulerGroup(r.page, r.box, false);
  await schedulerArea(r.page, r.box, rrows);
  await cpuByThread(r.page, r.box, false);
  await cpuWakeup(r.page, r.box, false);
  r.noRequest();
  await r.page.close();
  console.log(`ok: the Scheduler counters and CPU by thread / process in trak ui and trak html; screenshots in ${outDir}`);
}).catch((e) => {
  console.error(e);
  process.exit(1);
});
