// Browser tests of the viewer's daily-driver features, driven as a person would (clicks, drags,
// keys) in Debian's chromium through playwright-core, checked from the DOM and the drawn state
// (window.trakViewer.state()): the track tree (collapse with a summary, pin, filter, permalink),
// tooltips and counter readouts, area selection with aggregates and a flame graph (equal to the
// same SQL through `trak query`), measure / flags / focus / double-click / clamping, the omnibox,
// async lanes, and the SQL panel (pages, CSV, cancel, resizing). Each feature saves a screenshot
// in OUT_DIR (docs/ui.md shows them) and checks it is not blank.
//   node features_test.js TRAK SDK_DEMO OUT_DIR
'use strict';
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const common = require('./common.js');

const [trak, sdkDemo, outDir] = process.argv.slice(2);
const LABEL_W = 230, PIN_X = LABEL_W - 18;

const query = (trace, sql) => common.query(trak, trace, sql);

const { state, settle } = common;
const screenshot = (page, name) => common.screenshot(page, path.join(outDir, name));

const rowOf = (s, re) => { const r = s.rows.find((x) => re.test(x.label)); assert.ok(r, `no row ${re} in ${s.rows.map((x) => x.label)}`); return r; };

async function trackTree(page, box, base) {
  let s = await settle(page);
  const proc = s.rows.find((r) => r.key.startsWith('p'));
  assert.ok(proc && proc.collapsible && !proc.collapsed);
  const threadsBefore = s.rows.filter((r) => r.key.startsWith('t')).length;
  assert.ok(threadsBefore >= 4);
  // Collapse the process: its threads go, a summary of its busy lanes is drawn instead.
  await page.mouse.click(box.x + 30, box.y + proc.top + 8);
  s = await settle(page);
  const collapsed = s.rows.find((r) => r.key === proc.key);
  assert.ok(collapsed.collapsed && collapsed.summary);
  assert.equal(s.rows.filter((r) => r.key.startsWith('t')).length, 0);
  const sum = s.summaries.find((x) => x.key === proc.key);
  assert.ok(sum && sum.tracks >= threadsBefore && sum.columns > 50, JSON.stringify(s.summaries));
  await screenshot(page, 'ui-collapsed.png');
  await page.mouse.click(box.x + 30, box.y + collapsed.top + 8);
  s = await settle(page);
  assert.equal(s.rows.filter((r) => r.key.startsWith('t')).length, threadsBefore);
  // Pin the last worker: it moves to the band under the ruler and stays there on scroll.
  await page.evaluate((id) => window.trakViewer.scrollToTrack(id), s.rows.filter((r) => /^worker-/.test(r.label)).pop().track);
  s = await settle(page);
  const worker = s.rows.filter((r) => /^worker-/.test(r.label)).pop();
  await page.mouse.click(box.x + PIN_X + 7, box.y + worker.top + 9);
  s = await settle(page);
  const pinned = s.rows.find((r) => r.key === worker.key);
  assert.ok(pinned.pinned && pinned.top === 24, JSON.stringify(pinned));
  assert.equal(s.rows.filter((r) => r.key === worker.key).length, 1);
  await page.mouse.move(box.x + 600, box.y + 300);
  await page.mouse.wheel(0, 400);
  s = await settle(page);
  assert.ok(s.scrollY > 0);
  assert.equal(s.rows.find((r) => r.key === worker.key).top, 24);
  assert.ok(s.slices.some((x) => x.row === worker.key), 'pinned row drawn');
  await screenshot(page, 'ui-pinned.png');
  // Filter by name: only matching rows and their groups.
  await page.fill('#track-filter', 'worker-1');
  s = await settle(page);
  const unpinned = s.rows.filter((r) => !r.pinned).map((r) => r.label);
  assert.ok(unpinned.some((l) => /^worker-1 /.test(l)) && !unpinned.some((l) => /^worker-0|^producer/.test(l)), `${unpinned}`);
  // The URL holds the view: a new page on it shows the same rows, range and filter.
  await page.waitForFunction(() => /f=worker-1/.test(location.hash));
  const url = page.url();
  assert.match(url, new RegExp(`pin=${worker.key}`));
  const copy = await page.context().newPage();
  await copy.setViewportSize({ width: 1280, height: 860 });
  await copy.goto(url);
  const c = await settle(copy);
  assert.deepEqual(c.rows.map((r) => [r.key, r.pinned]), s.rows.map((r) => [r.key, r.pinned]));
  assert.ok(Math.abs(c.start - s.start) <= 1 && Math.abs(c.end - s.end) <= 1);
  assert.equal(await copy.inputValue('#track-filter'), 'worker-1');
  await copy.close();
  await page.fill('#track-filter', '');
  await page.mouse.click(box.x + PIN_X + 7, box.y + 24 + 9); // unpin
  s = await settle(page);
  assert.ok(!s.rows.some((r) => r.pinned));
  await page.evaluate(() => window.trakViewer.scrollToTrack(-1));
  await page.mouse.wheel(0, -5000);
  return settle(page);
}

async function hoverAndCounters(page, box) {
  let s = await settle(page);
  await page.evaluate((id) => window.trakViewer.scrollToTrack(id), rowOf(s, /^queue depth$/).track);
  s = await settle(page);
  const sl = s.slices.find((x) => !x.instant && x.w > 20 && x.y > 40 && x.y < 500);
  await page.mouse.move(box.x + sl.x + sl.w / 2, box.y + sl.y + sl.h / 2);
  await page.waitForSelector('#tooltip:not([hidden])');
  const tip = await page.textContent('#tooltip');
  assert.ok(tip.includes(sl.name) && /\d (ns|us|ms|s)/.test(tip), tip);
  await screenshot(page, 'ui-tooltip.png');
  const counter = rowOf(s, /^queue depth$/);
  const cx = box.x + LABEL_W + (box.width - LABEL_W) * 0.5, cy = box.y + counter.top + 25;
  await page.mouse.move(cx, cy);
  await page.waitForFunction(() => /queue depth/.test(document.getElementById('tooltip').textContent));
  await page.mouse.click(cx, cy);
  await page.waitForSelector('#counter-value');
  // the details come before the next frame marks the selected value on the track
  await page.waitForFunction(() => {
    const c = window.trakViewer.state().counters.find((x) => x.name === 'queue depth');
    return c && c.selected !== null;
  });
  s = await state(page);
  assert.equal(s.counter.name, 'queue depth');
  const text = await page.textContent('#counter-value');
  assert.ok(text.includes(`Value${s.counter.value} count`), text);
  if (s.counter.prev !== null) assert.ok(text.includes(`Delta${s.counter.value - s.counter.prev >= 0 ? '+' : ''}${s.counter.value - s.counter.prev} count`), text);
  const drawnCounter = s.counters.find((x) => x.name === 'queue depth');
  assert.equal(drawnCounter.selected, s.counter.value);
  assert.ok(drawnCounter.axis[1] > drawnCounter.axis[0]);
  await screenshot(page, 'ui-counter.png');
}

async function areaSelection(page, box, trace) {
  let s = await settle(page);
  await page.evaluate((id) => window.trakViewer.scrollToTrack(id), rowOf(s, /^queue depth$/).track);
  s = await settle(page);
  const from = rowOf(s, /^queue depth$/), to = s.rows.filter((r) => /^worker-/.test(r.label)).pop();
  const x0 = box.x + LABEL_W + 100, x1 = box.x + box.width - 200;
  await common.drag(page, x0, box.y + from.top + 10, x1, box.y + to.top + 10);
  await page.waitForSelector('#agg-slices');
  s = await state(page);
  const a = s.area;
  assert.ok(a.tracks.length >= 5 && a.tracks.includes(from.track), JSON.stringify(a));
  const ids = a.tracks.join(',');
  const sqlSlices = query(trace, `SELECT name, count(*), sum(dur), sum(dur - coalesce((SELECT sum(c.dur) FROM slice c WHERE c.parent_id = s.id AND c.dur >= 0), 0)) FROM slice s WHERE track_id IN (${ids}) AND dur >= 0 AND ts <= ${a.end} AND ts + dur >= ${a.start} GROUP BY name ORDER BY name`);
  const got = a.agg.slices.map((r) => [r[0], String(r[1]), String(r[2]), String(r[4])]).sort((p, q) => p[0].localeCompare(q[0]));
  assert.deepEqual(got, sqlSlices);
  for (const r of a.agg.slices) assert.ok(Math.abs(r[3] - r[2] / r[1]) < 1e-6);
  const sqlCounters = query(trace, `SELECT track_id, count(*), min(value), max(value) FROM counter WHERE track_id IN (${ids}) AND ts >= ${a.start} AND ts <= ${a.end} GROUP BY track_id ORDER BY track_id`);
  assert.deepEqual(a.agg.counters.map((r) => [r[0], r[1], r[2], r[3]].map(Number)), sqlCounters.map((r) => r.map(Number)));
  assert.ok(a.agg.counters.length === 1);
  assert.equal(await page.locator('#agg-slices tr').count(), a.agg.slices.length + 1);
  await screenshot(page, 'ui-area.png');
  await page.click('button[data-tab=counters]');
  await page.waitForSelector('#agg-counters');
  // The flame graph: nodes by name stack equal the recursive SQL; a click zooms in and out.
  await page.click('button[data-tab=flame]');
  await page.waitForSelector('#flame');
  s = await state(page);
  const stacks = [];
  const nameOf = (i) => (s.flame.nodes[i][0] < 0 ? s.flame.nodes[i][1] : `${nameOf(s.flame.nodes[i][0])} > ${s.flame.nodes[i][1]}`);
  s.flame.nodes.forEach((n, i) => stacks.push([nameOf(i), String(n[3]), String(n[2])]));
  const sqlFlame = query(trace, `WITH RECURSIVE st(id, stack, dur) AS (SELECT id, name, dur FROM slice WHERE parent_id IS NULL AND track_id IN (${ids}) AND dur >= 0 AND ts <= ${a.end} AND ts + dur >= ${a.start} UNION ALL SELECT c.id, st.stack || ' > ' || c.name, c.dur FROM slice c JOIN st ON c.parent_id = st.id WHERE c.dur >= 0 AND c.ts <= ${a.end} AND c.ts + c.dur >= ${a.start}) SELECT stack, count(*), sum(dur) FROM st GROUP BY stack ORDER BY stack`);
  assert.deepEqual(stacks.sort((p, q) => (p[0] < q[0] ? -1 : p[0] > q[0] ? 1 : 0)), sqlFlame);
  await screenshot(page, 'ui-flamegraph.png');
  const fbox = await page.locator('#flame').boundingBox();
  // The nodes come with the answer, the drawn boxes with the next frame: wait for that frame
  // (a node drawn with a parent, wide enough to click; null when none comes).
  const target = await page.waitForFunction(() => {
    const st = window.trakViewer.state();
    return st.flame.drawn.find((r) => r.node >= 0 && st.flame.nodes[r.node][0] >= 0 && r.w > 8);
  }, null, { timeout: 5000 }).then((h) => h.jsonValue(), () => null);
  assert.ok(target, 'a drawn flame node with a parent, wider than 8 px');
  await page.mouse.click(fbox.x + target.x + 3, fbox.y + target.y + 5);
  s = await state(page);
  assert.equal(s.flame.root, target.node);
  const top = s.flame.drawn.find((r) => r.node === target.node);
  assert.ok(top.w > fbox.width * 0.95, 'zoomed node spans the graph');
  await page.mouse.click(fbox.x + 5, fbox.y + 5); // the top bar zooms out
  assert.notEqual((await state(page)).flame.root, target.node);
  // Shift+drag pans and leaves the selection alone.
  const before = await state(page);
  await page.keyboard.down('Shift');
  await page.mouse.move(box.x + 700, box.y + 200);
  await page.mouse.down();
  await page.mouse.move(box.x + 600, box.y + 200, { steps: 4 });
  await page.mouse.up();
  await page.keyboard.up('Shift');
  s = await settle(page);
  assert.equal(s.area.start, before.area.start);
  assert.ok(s.start !== before.start || before.start === before.traceStart);
  await page.keyboard.press('Escape');
  return a;
}

async function navigation(page, box) {
  let s = await settle(page);
  const sl = s.slices.find((x) => !x.instant && x.w > 20 && x.dur > 0 && x.y > 40 && x.y < 500);
  await page.mouse.click(box.x + sl.x + sl.w / 2, box.y + sl.y + sl.h / 2);
  await page.waitForFunction((id) => window.trakViewer.state().selected === id, sl.id);
  await page.keyboard.press('m');
  s = await state(page);
  const info = await page.evaluate(() => document.querySelector('#details').textContent);
  assert.ok(s.measure && s.measure.end - s.measure.start > 0, info);
  await page.keyboard.press('f');
  s = await settle(page);
  assert.ok(s.start <= s.measure.start && s.end >= s.measure.end);
  assert.ok(s.end - s.start <= (s.measure.end - s.measure.start) * 1.3 + 20);
  await screenshot(page, 'ui-measure.png');
  // Flags: a click on the ruler sets one, a second click there clears it.
  await page.mouse.click(box.x + 700, box.y + 12);
  s = await state(page);
  assert.equal(s.flags.length, 1);
  await page.mouse.click(box.x + 820, box.y + 12);
  assert.equal((await state(page)).flags.length, 2);
  await screenshot(page, 'ui-flags.png');
  await page.mouse.click(box.x + 820, box.y + 12);
  assert.equal((await state(page)).flags.length, 1);
  // Double-click on a slice zooms to it; on the empty timeline of a header row, zooms in.
  await page.evaluate(() => { const v = window.trakViewer; v.setRange(v.state().traceStart, v.state().traceEnd); });
  s = await settle(page);
  const d = s.slices.find((x) => !x.instant && x.w > 30 && x.w < 600 && x.y > 40 && x.y < 500 && x.dur > 0);
  assert.ok(d, 'a slice to double-click');
  await page.mouse.dblclick(box.x + d.x + d.w / 2, box.y + d.y + d.h / 2);
  s = await settle(page);
  assert.ok(Math.abs(s.end - s.start - d.dur * 1.2) <= 20 + d.dur * 0.01, `${s.end - s.start} vs ${d.dur}`);
  await page.evaluate(() => { const v = window.trakViewer; v.setRange(v.state().traceStart, v.state().traceEnd); });
  await page.mouse.move(box.x + 700, box.y + 300);
  await page.mouse.wheel(0, -100000); // to the top: the process's header row is empty timeline
  s = await settle(page);
  const gap = s.rows.find((r) => r.kind === 'header' && r.top >= 24 && r.top < 700);
  const span = s.end - s.start;
  await page.mouse.dblclick(box.x + 700, box.y + gap.top + 8);
  s = await settle(page);
  assert.ok(s.end - s.start < span * 0.75, `${s.end - s.start} vs ${span}`);
  // The view stays in the trace.
  for (let i = 0; i < 30; i++) await page.keyboard.press('s');
  for (let i = 0; i < 15; i++) await page.keyboard.press('a');
  s = await settle(page);
  assert.equal(s.start, s.traceStart);
  assert.equal(s.end, s.traceEnd);
  await page.keyboard.press('Escape');
}

async function omnibox(page, trace) {
  await page.locator('#timeline').click({ position: { x: 5, y: 5 } });
  await page.keyboard.press('Control+f');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'search');
  await page.keyboard.press('Escape');
  await page.locator('#timeline').focus();
  await page.keyboard.press('/');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'search');
  // An arg's value finds its slice; so does an id.
  const [[id, value]] = query(trace, "SELECT s.id, a.display_value FROM slice s JOIN args a USING (arg_set_id) WHERE a.key = 'debug.item' ORDER BY s.id LIMIT 1 OFFSET 7");
  const byValue = query(trace, `SELECT count(*) FROM slice WHERE name LIKE '%${value}%' OR arg_set_id IN (SELECT arg_set_id FROM args WHERE display_value LIKE '%${value}%') OR id = ${value}`)[0][0];
  await page.fill('#search', value);
  await page.press('#search', 'Enter');
  await page.waitForFunction((n) => new RegExp(`^1 / ${n}$`).test(document.getElementById('search-status').textContent), byValue);
  await page.fill('#search', id);
  await page.press('#search', 'Enter');
  await page.waitForFunction((want) => window.trakViewer.state().selected === want, Number(id));
  await screenshot(page, 'ui-search.png');
  await page.fill('#search', ":select count(*) as n from slice where name = 'compute'");
  await page.press('#search', 'Enter');
  await page.waitForFunction(() => /^1 rows/.test(document.getElementById('sql-status').textContent));
  assert.equal(await page.textContent('#sql-result td'), query(trace, "select count(*) from slice where name = 'compute'")[0][0]);
}

async function sqlPanel(page, box) {
  await page.fill('#sql-text', 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 25000) SELECT x, \'a,"b\' AS s FROM c');
  await page.click('#sql-run');
  await page.waitForFunction(() => /^10000\+ rows/.test(document.getElementById('sql-status').textContent));
  await page.click('#sql-next');
  await page.waitForFunction(() => /^rows 10001\u201320000/.test(document.getElementById('sql-status').textContent));
  await page.click('#sql-next');
  await page.waitForFunction(() => /^rows 20001\u201325000/.test(document.getElementById('sql-status').textContent));
  assert.equal(await page.isDisabled('#sql-next'), true);
  assert.equal(await page.textContent('#sql-result tr:nth-child(2) td'), '20001');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#sql-csv')]);
  const file = path.join(outDir, 'query.csv');
  await download.saveAs(file);
  const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
  assert.equal(lines.length, 25001);
  assert.equal(lines[0], 'x,s');
  assert.equal(lines[25000], '25000,"a,""b"');
  // A query without end: Cancel stops it; the timeline kept answering meanwhile.
  await page.fill('#sql-text', 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c');
  await page.click('#sql-run');
  await page.waitForFunction(() => !document.getElementById('sql-cancel').disabled);
  await page.keyboard.press('w');
  await settle(page);
  await page.click('#sql-cancel');
  await page.waitForFunction(() => /interrupted/.test(document.getElementById('sql-status').textContent));
  // The splitter resizes the bottom panel.
  const h = (await page.locator('#bottom').boundingBox()).height;
  const sp = await page.locator('#split-h').boundingBox();
  await page.mouse.move(sp.x + 300, sp.y + 2);
  await page.mouse.down();
  await page.mouse.move(sp.x + 300, sp.y - 120, { steps: 4 });
  await page.mouse.up();
  const h2 = (await page.locator('#bottom').boundingBox()).height;
  assert.ok(Math.abs(h2 - h - 120) < 3, `${h} -> ${h2}`);
  await screenshot(page, 'ui-sql.png');
}

async function asyncLanes(browser) {
  const golden = path.join(__dirname, '../data/golden/json/json_async.json');
  const file = path.join(outDir, 'async.html');
  execFileSync(trak, ['html', golden, '-o', file]);
  const page = await browser.newPage({ viewport: { width: 1280, height: 600 } });
  await page.goto(`file://${file}`);
  let s = await settle(page);
  const req = s.rows.filter((r) => r.label === 'req');
  assert.equal(req.length, 1, `${s.rows.map((r) => r.label)}`);
  assert.equal(req[0].tracks.length, 2);
  assert.ok(s.slices.filter((x) => x.row === req[0].key).length >= 3);
  await screenshot(page, 'ui-async.png');
  await page.close();
  // The global instants' row is named so (not "track").
  const json = path.join(outDir, 'global.json');
  fs.writeFileSync(json, JSON.stringify({ traceEvents: [
    { ph: 'i', s: 'g', name: 'mark', ts: 5, pid: 1, tid: 1 }, { ph: 'X', name: 'w', ts: 1, dur: 10, pid: 1, tid: 1 }] }));
  const gfile = path.join(outDir, 'global.html');
  execFileSync(trak, ['html', json, '-o', gfile]);
  const g = await browser.newPage();
  await g.goto(`file://${gfile}`);
  s = await settle(g);
  assert.ok(s.rows.some((r) => r.label === 'Global events'));
  assert.ok(!s.rows.some((r) => r.label === 'track'));
  // html mode: the area selection works from the file's data.
  const box = await g.locator('#timeline').boundingBox();
  const row = s.rows.find((r) => r.kind === 'slice' && r.label !== 'Global events');
  await g.mouse.move(box.x + LABEL_W + 5, box.y + row.top + 5);
  await g.mouse.down();
  await g.mouse.move(box.x + box.width - 5, box.y + row.top + 10, { steps: 3 });
  await g.mouse.up();
  await g.waitForSelector('#agg-slices');
  assert.deepEqual((await state(g)).area.agg.slices.map((r) => r.slice(0, 3)), [['w', 1, 10000]]);
  await g.close();
}

(async () => {
  const { trace, browser } = await common.setUp(sdkDemo, outDir);
  const errors = [];
  let ui;
  try {
    ui = await common.startUi(trak, trace);
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, acceptDownloads: true });
    context.on('page', (p) => p.on('pageerror', (e) => errors.push(String(e))));
    const page = await context.newPage();
    await page.goto(ui.url);
    const box = await page.locator('#timeline').boundingBox();
    await trackTree(page, box);
    await hoverAndCounters(page, box);
    await areaSelection(page, box, trace);
    await navigation(page, box);
    await omnibox(page, trace);
    await sqlPanel(page, box);
    await asyncLanes(browser);
    assert.deepEqual(errors, []);
    console.log(`ok: viewer features; screenshots in ${outDir}`);
  } finally {
    await browser.close();
    if (ui) ui.child.kill('SIGTERM');
  }
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
