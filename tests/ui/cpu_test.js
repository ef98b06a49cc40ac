// Browser tests of the viewer's interrupt tracks and CPU usage on a checked-in protobuf text trace
// (tests/data/linux/ui_irq.pbtxt: scheduling, hard irqs and softirqs on two CPUs), in `trak ui`
// and in a `trak html` report, driven as a person would in Debian's chromium through
// playwright-core: each CPU's "Irq Cpu N" and "SoftIrq Cpu N" rows under it, collapsing the CPU
// hides them, hover and click an interrupt, select an area over the CPUs and their interrupts
// and read the Slices and "CPU usage" tabs, which equal the same SQL through `trak query`; open the
// system counters' groups (CPU times, Memory, System), read a CPU time as its delta, and scroll
// under the tooltip; the page draws as deltas the counters the server lists.
// Screenshots go to OUT_DIR (docs/ui.md shows them), each checked not to be blank.
//   node cpu_test.js TRAK TRACE OUT_DIR
'use strict';
const assert = require('node:assert/strict');
const path = require('node:path');
const common = require('./common.js');

const [trak, trace, outDir] = process.argv.slice(2);
const LABEL_W = 230;
const { state, settle } = common;
const query = (sql) => common.query(trak, trace, sql);
const screenshot = (page, name) => common.screenshot(page, path.join(outDir, name));

// The CPUs group: each CPU, then its interrupt tracks as the importer names them; drawn slices
// on them carry the names of the slice table.
async function layout(page) {
  const s = await settle(page);
  const cpus = query('SELECT DISTINCT cpu FROM sched ORDER BY cpu').map((r) => r[0]);
  const want = ['CPUs', ...cpus.flatMap((c) => [`CPU ${c}`, `Irq Cpu ${c}`, `SoftIrq Cpu ${c}`])];
  assert.deepEqual(s.rows.slice(0, want.length).map((r) => r.label), want);
  const irq = s.rows.filter((r) => /Irq Cpu/.test(r.label));
  const ids = query("SELECT id FROM track WHERE type IN ('cpu_irq', 'cpu_softirq') ORDER BY id").map((r) => Number(r[0]));
  assert.deepEqual(irq.map((r) => r.track).sort((a, b) => a - b), ids);
  // No interrupt track left among the global tracks below.
  assert.equal(s.rows.filter((r) => /Irq Cpu/.test(r.label)).length, ids.length);
  const names = new Set(query('SELECT DISTINCT name FROM slice').map((r) => r[0]));
  const drawn = s.slices.filter((x) => irq.some((r) => r.key === x.row));
  assert.ok(drawn.length > 20, `${drawn.length} interrupts drawn`);
  for (const x of drawn) assert.ok(names.has(x.name), x.name);
  assert.ok(drawn.some((x) => x.name === 'IRQ (eth0)') && drawn.some((x) => x.name === 'NET_RX'));
  return s;
}

// A CPU's label collapses it (its interrupt rows go) and expands it again.
async function collapseCpu(page, box) {
  let s = await settle(page);
  const cpu = s.rows.find((r) => r.label === 'CPU 0');
  assert.ok(cpu.collapsible);
  await page.mouse.click(box.x + 60, box.y + cpu.top + 8);
  s = await settle(page);
  assert.ok(s.rows.find((r) => r.label === 'CPU 0').collapsed);
  assert.ok(!s.rows.some((r) => r.label === 'Irq Cpu 0'), 'Irq Cpu 0 hidden under its collapsed CPU');
  assert.ok(s.rows.some((r) => r.label === 'Irq Cpu 1'));
  await page.mouse.click(box.x + 60, box.y + cpu.top + 8);
  s = await settle(page);
  assert.ok(s.rows.some((r) => r.label === 'Irq Cpu 0'));
}

// Hover an interrupt: its name and duration; click it: its details (the slice table's row).
async function hoverAndClick(page, box) {
  const s = await settle(page);
  const rowKeys = s.rows.filter((r) => /^Irq Cpu/.test(r.label)).map((r) => r.key);
  const x = s.slices.find((e) => rowKeys.includes(e.row) && e.count === 1 && e.w > 4);
  assert.ok(x, 'a lone interrupt wide enough to point at');
  await page.mouse.move(box.x + x.x + x.w / 2, box.y + x.y + x.h / 2);
  await page.waitForFunction((n) => document.getElementById('tooltip').textContent.includes(n), x.name);
  assert.match(await page.textContent('#tooltip'), /\d (ns|us|ms|s)/);
  await page.mouse.click(box.x + x.x + x.w / 2, box.y + x.y + x.h / 2);
  await page.waitForFunction((n) => document.querySelector('#details h2')?.textContent === n, x.name);
  const [dur] = query(`SELECT dur FROM slice WHERE id = ${x.id}`)[0];
  assert.equal(Number(dur), x.dur);
  assert.match(await page.textContent('#details'), /ret/); // the exit's handled/unhandled arg
  await page.keyboard.press('Escape');
}

// Drag from CPU 0 down to SoftIrq Cpu 1 over the middle of the trace: the Slices tab holds the
// interrupts by name and the CPU usage tab each CPU's busy time, both as SQL answers them.
async function areaOverCpus(page, box, shots) {
  await common.dragRows(page, box, 'CPU 0', 'SoftIrq Cpu 1', 120, 200);
  await page.waitForSelector('#agg-slices');
  const s = await state(page);
  const a = s.area;
  const irqIds = query("SELECT id FROM track WHERE type IN ('cpu_irq', 'cpu_softirq')").map((r) => Number(r[0]));
  for (const id of irqIds) assert.ok(a.tracks.includes(id), `track ${id} in the area`);
  const sqlSlices = query(`SELECT name, count(*), sum(dur) FROM slice WHERE track_id IN (${a.tracks}) AND dur >= 0 ` +
    `AND ts <= ${a.end} AND ts + dur >= ${a.start} GROUP BY name ORDER BY name`);
  assert.deepEqual(a.agg.slices.map((r) => [r[0], String(r[1]), String(r[2])]).sort((p, q) => (p[0] < q[0] ? -1 : 1)), sqlSlices);
  assert.ok(sqlSlices.length >= 4);
  if (shots) await screenshot(page, 'ui-irq.png');
  await page.click('button[data-tab=cpus]');
  await page.waitForSelector('#agg-cpus');
  const sqlCpus = query(`SELECT cpu, count(*), sum(min(CASE WHEN dur < 0 THEN ${a.end} ELSE ts + dur END, ${a.end}) - max(ts, ${a.start})) ` +
    `FROM sched WHERE utid NOT IN (SELECT utid FROM thread WHERE is_idle) AND ts < ${a.end} AND (dur < 0 OR ts + dur > ${a.start}) ` +
    'GROUP BY cpu ORDER BY cpu');
  assert.deepEqual(a.agg.cpus.map((r) => r.map(String)).sort((p, q) => p[0] - q[0]), sqlCpus);
  const text = await page.textContent('#agg-cpus');
  for (const [cpu, , busy] of a.agg.cpus) {
    assert.ok(busy > 0);
    assert.ok(text.includes(`CPU ${cpu}`) && text.includes((100 * busy / (a.end - a.start)).toFixed(1)), text);
  }
  if (shots) await screenshot(page, 'ui-cpu-usage.png');
  await page.keyboard.press('Escape');
}

// A /proc/stat time is drawn as Perfetto's yMode 'delta': each sample's change to the next (the
// SQL's LEAD), the y axis fitting the deltas; hovering between two samples reads the first one's
// delta marked "\u0394", and a click shows it as the Delta in the details.
async function userTimeDeltas(page, box, track, shots) {
  const rows = query(`SELECT ts, LEAD(value, 1, value) OVER (ORDER BY ts) - value FROM counter WHERE track_id = ${track} ORDER BY ts`)
    .map(([ts, d]) => [Number(ts), Number(d)]);
  assert.ok(rows.length > 2 && rows[1][1] > 0, JSON.stringify(rows));
  let s = await settle(page);
  const c = s.counters.find((x) => x.track === track);
  assert.ok(c && c.delta, 'the User Time counter is drawn as deltas');
  assert.equal(c.axis[1], Math.max(...rows.map((r) => r[1])), 'the y axis fits the deltas');
  const row = s.rows.find((r) => r.track === track);
  const t = (rows[1][0] + rows[2][0]) / 2;
  const x = box.x + LABEL_W + ((t - s.start) / (s.end - s.start)) * (box.width - LABEL_W);
  const want = `\u0394${+rows[1][1].toPrecision(6)}`;
  await page.mouse.move(x, box.y + row.top + 20);
  await page.waitForFunction(() => document.getElementById('tooltip').textContent.startsWith('User Time (CPU'));
  const tip = await page.$eval('#tooltip', (e) => e.textContent);
  assert.ok(tip.includes(want), `tooltip ${tip}, wanted ${want}`);
  await page.mouse.click(x, box.y + row.top + 20);
  s = await settle(page);
  assert.equal(s.counter && s.counter.value, rows[1][1]);
  const details = await page.$eval('#counter-value', (e) => e.textContent);
  assert.ok(details.startsWith('Delta') && details.includes(want), details);
  if (shots) await screenshot(page, 'ui-cpustat-delta.png');
  await page.keyboard.press('Escape');
}

// The system counters in collapsed groups, as Perfetto's: each /proc/stat time in the CPUs group
// ("User Time", a row per CPU), meminfo and vmstat in Memory, forks in System, then the Scheduler
// group's counts; expanding them
// shows the counter tracks the tables have. A scroll with the wheel updates the tooltip.
async function counterGroups(page, box, shots) {
  let s = await settle(page);
  const labels = s.rows.map((r) => r.label);
  const at = labels.indexOf('SoftIrq Cpu 1') + 1;
  assert.deepEqual(labels.slice(at, at + 11), ['User Time', 'Nice Time', 'Kernel Time', 'Idle Time', 'IO Wait Time',
    'Hardware IRQ Time', 'Soft IRQ Time', 'Steal Time', 'Memory', 'System', 'Scheduler']);
  for (const r of s.rows.slice(at, at + 11)) assert.ok(r.collapsed && r.kind === 'header', r.label);
  assert.ok(!s.rows.some((r) => r.kind === 'counter'), 'no counter shown until a group opens');
  const click = async (label) => {
    const r = (await state(page)).rows.find((x) => x.label === label);
    await page.mouse.click(box.x + 60, box.y + r.top + 8);
    return settle(page);
  };
  s = await click('User Time');
  const user = query("SELECT c.id, c.cpu FROM cpu_counter_track c WHERE c.type = 'cpustat' AND c.name = 'cpu.times.user_ns' ORDER BY c.cpu");
  const got = s.rows.filter((r) => /^User Time \(CPU/.test(r.label));
  assert.deepEqual(got.map((r) => [r.label, r.track]), user.map(([id, cpu]) => [`User Time (CPU ${cpu})`, Number(id)]));
  await userTimeDeltas(page, box, Number(user[0][0]), shots);
  s = await click('Memory');
  assert.deepEqual(s.rows.filter((r) => r.indent === 1 && ['Meminfo', 'vmstat'].includes(r.label)).map((r) => [r.label, r.collapsed]),
    [['Meminfo', true], ['vmstat', true]]);
  s = await click('Meminfo');
  const mem = query("SELECT id, name FROM counter_track WHERE type = 'meminfo' ORDER BY id");
  const memRows = s.rows.filter((r) => r.kind === 'counter' && r.indent === 2 && !/^User Time/.test(r.label));
  assert.deepEqual(memRows.map((r) => [r.track, r.label]), mem.map(([id, name]) => [Number(id), name]));
  assert.ok(s.counters.some((c) => c.name === 'MemFree'), 'MemFree drawn');
  if (shots) await screenshot(page, 'ui-counter-groups.png');
  // Hover MemFree, scroll the tracks under the cursor: the tooltip follows what is under it.
  const free = s.rows.find((r) => r.label === 'MemFree');
  const cy = free.top + 20;
  await page.mouse.move(box.x + box.width / 2, box.y + cy);
  await page.waitForFunction(() => document.getElementById('tooltip').textContent.startsWith('MemFree'));
  await page.mouse.wheel(0, 120);
  s = await settle(page);
  assert.ok(s.scrollY > 0, 'the tracks scrolled');
  const under = s.rows.find((r) => !r.pinned && r.top <= cy && cy < r.top + r.h);
  const tip = await page.$eval('#tooltip', (e) => (e.hidden ? '' : e.textContent));
  assert.ok(under && under.label !== 'MemFree', under && under.label);
  assert.ok(!tip.startsWith('MemFree'), `stale tooltip after a scroll: ${tip}`);
  await page.mouse.wheel(0, -1000);
  // the rows' places are read back to click them: wait for the scroll to the top to be drawn
  await page.waitForFunction(() => { const st = window.trakViewer.state(); return st.scrollY === 0 && st.idle; });
  for (const label of ['Meminfo', 'Memory', 'User Time']) await click(label);
}

// The page draws as deltas exactly the counters the server lists in "delta_tracks" (the server
// alone decides, src/ui/sched.c): with the tracks answer rewritten to list MemFree instead of
// the /proc/stat times, MemFree is drawn as deltas and User Time as its values.
async function deltasFollowTheServer(context, url) {
  const memFree = Number(query("SELECT id FROM counter_track WHERE type = 'meminfo' AND name = 'MemFree'")[0][0]);
  const user = Number(query("SELECT id FROM cpu_counter_track WHERE type = 'cpustat' AND name = 'cpu.times.user_ns' ORDER BY cpu")[0][0]);
  let listed = null;
  let served;
  const rewritten = new Promise((resolve) => { served = resolve; });
  await context.route(/\/api\/tracks/, async (route) => {
    const response = await route.fetch();
    const json = await response.json();
    listed = json.delta_tracks;
    json.delta_tracks = [memFree];
    await route.fulfill({ response, json });
    served();
  });
  const { page, box } = await common.openPage(context, url);
  await rewritten; // the page asks for the tracks after its load event: wait for that answer
  await context.unroute(/\/api\/tracks/);
  assert.ok(Array.isArray(listed) && listed.includes(user) && !listed.includes(memFree), `delta_tracks ${JSON.stringify(listed)}`);
  let s = await settle(page);
  const click = async (label) => {
    const r = (await state(page)).rows.find((x) => x.label === label);
    await page.mouse.click(box.x + 60, box.y + r.top + 8);
    return settle(page);
  };
  await click('User Time');
  await click('Memory');
  s = await click('Meminfo');
  const byTrack = (id) => s.counters.find((c) => c.track === id);
  assert.ok(byTrack(memFree) && byTrack(memFree).delta, 'MemFree drawn as deltas, as the server said');
  assert.ok(byTrack(user) && !byTrack(user).delta, 'User Time drawn as values, as the server said');
  await page.close();
}

// The same trace as a `trak html` report: the same rows and the same answers, with no request.
async function report(context) {
  const r = await common.openReport(context, trak, trace, path.join(outDir, 'report_irq.html'));
  await layout(r.page);
  await counterGroups(r.page, r.box, false);
  await areaOverCpus(r.page, r.box, false);
  r.noRequest();
  await r.page.close();
}

common.withUi(trak, trace, outDir, async (context, url) => {
  const { page, box } = await common.openPage(context, url);
  await layout(page);
  await collapseCpu(page, box);
  await hoverAndClick(page, box);
  await counterGroups(page, box, true);
  await areaOverCpus(page, box, true);
  await page.close();
  await deltasFollowTheServer(context, url);
  await report(context);
  console.log(`ok: interrupt tracks and CPU usage in trak ui and trak html; screenshots in ${outDir}`);
}).catch((e) => {
  console.error(e);
  process.exit(1);
});
