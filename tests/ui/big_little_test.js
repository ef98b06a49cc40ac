// Browser tests of the viewer's active CPU count per CPU type on a checked-in protobuf text trace
// (tests/data/linux/ui_big_little.pbtxt: four CPUs in two clusters, little 0-1 and big 2-3), in
// `trak ui` and in a `trak html` report, driven as a person would in Debian's chromium through
// playwright-core: opened, the Scheduler group shows "Active CPU count" with its two children
// "Active CPU count: little" and "Active CPU count: big" (Perfetto's names; no medium), each
// drawn with the minimum and maximum of the same SQL through `trak query` (Perfetto's
// _active_cpu_count_for_cluster_type: intervals_overlap_count! over the cluster's non-idle sched
// rows); the active CPU count's label collapses them; an area over the two gives the Counters
// tab the SQL's count, min, max and average in the range. The screenshot goes to OUT_DIR
// (docs/ui.md shows it), checked not to be blank.
//   node big_little_test.js TRAK TRACE OUT_DIR
'use strict';
const assert = require('node:assert/strict');
const common = require('./common.js');

const { trak, trace, outDir, query, screenshot } = common.scriptArgs();
const { settle } = common;

const TYPES = [['Active CPU count: little', 0], ['Active CPU count: big', 1]];
// Perfetto's _active_cpu_count_for_cluster_type(type) for the CPUs of cluster `cluster`: a
// table of (ts, value); the SQL runs after INCLUDE.
const INCLUDE = 'INCLUDE PERFETTO MODULE intervals.overlap; ';
const overlap = (cluster) => 'intervals_overlap_count!((SELECT ts, dur FROM sched WHERE ucpu IN ' +
  `(SELECT id FROM cpu WHERE cluster_id = ${cluster}) AND utid NOT IN (SELECT utid FROM thread ` +
  'WHERE is_idle)), ts, dur)';

async function perType(page, box, shots) {
  let s = await settle(page);
  const group = s.rows.find((r) => r.label === 'Scheduler');
  assert.ok(group && group.collapsed);
  await page.mouse.click(box.x + 60, box.y + group.top + 8);
  s = await settle(page);
  const at = s.rows.findIndex((r) => r.label === 'Active CPU count');
  const rows = s.rows.slice(at, at + 3);
  assert.deepEqual(rows.map((r) => r.label), ['Active CPU count', ...TYPES.map((t) => t[0])]);
  assert.ok(rows[0].collapsible && rows[1].indent === rows[0].indent + 1 && rows[2].indent === rows[1].indent);
  assert.ok(!s.rows.some((r) => /medium/.test(r.label)));
  for (const [name, cluster] of TYPES) {
    const [mx, mn, n] = query(`${INCLUDE}SELECT max(value), min(value), count(*) FROM ${overlap(cluster)}`)[0].map(Number);
    const drawn = s.counters.find((c) => c.name === name);
    assert.ok(drawn && drawn.points > 10 && n > 20, `${name}: ${JSON.stringify(drawn)}, ${n} rows`);
    assert.equal(drawn.max, mx, name);
    assert.equal(drawn.min, mn, name);
  }
  const all = s.counters.find((c) => c.name === 'Active CPU count').max;
  assert.ok(s.counters.filter((c) => / CPU count: /.test(c.name)).every((c) => c.max <= all && c.max >= 1));
  if (shots) await screenshot(page, 'ui-big-little.png');
  // An area over the little and big counts: the Counters tab holds the SQL's figures.
  const a = await common.areaCounters(page, box, rows[1], rows[2], 150, 250);
  assert.equal(a.agg.counters.length, 2);
  for (const [i, [name, cluster]] of TYPES.entries()) {
    const [n, mn, mx, avg] = query(`${INCLUDE}SELECT count(*), min(value), max(value), avg(value) FROM ` +
      `${overlap(cluster)} WHERE ts >= ${a.start} AND ts <= ${a.end}`)[0].map(Number);
    const got = a.agg.counters.find((c) => c[0] === rows[i + 1].track);
    assert.ok(got && n > 5, `${name} in the Counters tab`);
    assert.deepEqual(got.slice(1, 4), [n, mn, mx], name);
    assert.ok(Math.abs(got[4] - avg) < 1e-5 * Math.max(1, Math.abs(avg)), `${name}: ${got[4]} vs ${avg}`);
  }
  await page.keyboard.press('Escape');
  // The active CPU count's label folds its children away.
  s = await settle(page);
  await page.mouse.click(box.x + 60, box.y + s.rows.find((r) => r.label === 'Active CPU count').top + 8);
  s = await settle(page);
  assert.ok(!s.rows.some((r) => / CPU count: /.test(r.label)));
}

common.withUi(trak, trace, outDir, async (context, url) => {
  const { page, box } = await common.openPage(context, url);
  await perType(page, box, true);
  await page.close();
  const r = await common.openReport(context, trak, trace, `${outDir}/report_big_little.html`);
  await perType(r.page, r.box, false);
  r.noRequest();
  await r.page.close();
  console.log(`ok: the active CPU count per CPU type in trak ui and trak html; screenshot in ${outDir}`);
}).catch((e) => {
  console.error(e);
  process.exit(1);
});
