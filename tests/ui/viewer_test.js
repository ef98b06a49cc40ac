// Browser tests of trak's timeline viewer: Debian's chromium, driven headless by playwright-core,
// loads the demo trace (examples/sdk_demo.c, with the long_slices metric's annotations) served by
// `trak ui` and written by `trak html`, and checks from the page's DOM and its drawn-state
// (window.trakViewer.state()) that tracks, slice names, a counter, a flow and an annotation show,
// that a click opens the right details, that zoom changes the visible range, that search and
// (in ui mode) SQL work, and that a screenshot is not blank.
//   node viewer_test.js TRAK SDK_DEMO OUT_DIR
'use strict';
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const common = require('./common.js');

const [trak, sdkDemo, outDir] = process.argv.slice(2);
const METRIC = ['--run', 'long_slices', '--param', 'threshold_ns=1000000'];

const startUi = (trace) => common.startUi(trak, trace, METRIC);
const { state, settle, screenshot } = common;

async function checkViewer(page, mode) {
  let s = await settle(page);
  assert.equal(s.mode, mode);
  assert.equal(s.error, null);
  const labels = s.rows.map((r) => r.label);
  for (const want of [/^sdk_demo \d+$/, /^producer \d+$/, /^worker-\d \d+$/, /^requests$/, /^queue depth$/]) {
    assert.ok(labels.some((l) => want.test(l)), `no track ${want} in ${labels}`);
  }
  const annotation = s.rows.find((r) => r.metric === 'long_slices' && r.kind === 'slice');
  assert.ok(annotation, 'no annotation track');
  const counterRow = s.rows.find((r) => r.label === 'queue depth');
  assert.equal(counterRow.kind, 'counter');

  // Slices drawn on the first screen: names and at least one name written inside its slice.
  const names = new Set(s.slices.map((x) => x.name));
  assert.ok(names.has('request'), `drawn: ${[...names]}`);
  assert.ok(s.slices.some((x) => x.label && x.label.includes('req')), 'no slice label written');
  assert.ok(s.slices.some((x) => x.track === annotation.track), 'annotation slices not drawn');
  // long_slices flags its annotations as warnings: they are outlined, and their details say so.
  const flagged = s.slices.find((x) => x.alert === 'warning' && x.w >= 6);
  assert.ok(flagged, 'no alert drawn');
  await page.evaluate((id) => window.trakViewer.selectSlice(id, false), flagged.id);
  await page.waitForSelector('#alert');
  assert.match(await page.textContent('#alert'), /^warning: .* took \d+ ns \(over 1000000 ns\)/);

  // Threads, the counter and flows further down.
  await page.evaluate((id) => window.trakViewer.scrollToTrack(id), counterRow.track);
  s = await settle(page);
  const producer = s.rows.find((r) => /^producer/.test(r.label));
  await page.evaluate((id) => window.trakViewer.scrollToTrack(id), producer.track);
  s = await settle(page);
  const threadNames = new Set(s.slices.filter((x) => x.track === producer.track).map((x) => x.name));
  assert.ok(threadNames.has('enqueue'), `producer slices: ${[...threadNames]}`);
  assert.ok(s.flows.length > 0, 'no flow arrow drawn');
  await page.evaluate((id) => window.trakViewer.scrollToTrack(id), counterRow.track);
  s = await settle(page);
  const counter = s.counters.find((c) => c.name === 'queue depth');
  assert.ok(counter && counter.points > 1 && counter.max > 0, `counter: ${JSON.stringify(s.counters)}`);
  assert.equal(counter.unit, 'count');

  // A click on a slice opens its details.
  const box = await page.locator('#timeline').boundingBox();
  const target = s.slices.find((x) => x.w >= 6 && !x.instant && x.y > 30);
  await page.mouse.click(box.x + target.x + Math.min(target.w / 2, 40), box.y + target.y + target.h / 2);
  await page.waitForFunction((id) => window.trakViewer.state().selected === id, target.id);
  assert.equal(await page.textContent('#details h2'), target.name);
  assert.match(await page.textContent('#details'), /Duration/);

  // Zoom with W (and the mouse over the timeline) narrows the visible range; S widens it.
  const before = s.end - s.start;
  await page.mouse.move(box.x + box.width * 0.6, box.y + 80);
  for (let i = 0; i < 6; i++) await page.keyboard.press('w');
  s = await settle(page);
  assert.ok(s.end - s.start < before * 0.4, `span ${s.end - s.start} after zoom, was ${before}`);
  const zoomed = s.end - s.start;
  await page.keyboard.press('d');
  s = await settle(page);
  assert.ok(Math.abs(s.end - s.start - zoomed) < zoomed * 1e-6, 'pan changed the span');
  for (let i = 0; i < 6; i++) await page.keyboard.press('s');
  s = await settle(page);
  assert.ok(s.end - s.start > zoomed * 2);

  // Search: the first match is selected, its details shown; next moves on.
  await page.fill('#search', 'compute');
  await page.press('#search', 'Enter');
  await page.waitForFunction(() => /^1 \/ \d+/.test(document.getElementById('search-status').textContent));
  await page.waitForFunction(() => document.querySelector('#details h2')?.textContent === 'compute');
  const first = (await state(page)).selected;
  await page.click('#search-next');
  await page.waitForFunction(() => /^2 \/ \d+/.test(document.getElementById('search-status').textContent));
  await page.waitForFunction((id) => window.trakViewer.state().selected !== id, first);
  // A "process" slice has a flow in (from the producer's enqueue) and args.
  await page.fill('#search', 'process');
  await page.press('#search', 'Enter');
  await page.waitForSelector('#flows_in a.slice');
  assert.match(await page.textContent('#args'), /debug\.item/);
  assert.equal(await page.textContent('#flows_in a.slice'), 'enqueue');
  return settle(page);
}

(async () => {
  const { trace, browser } = await common.setUp(sdkDemo, outDir);
  const errors = [];
  const newPage = async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    page.on('pageerror', (e) => errors.push(String(e)));
    return page;
  };
  let ui;
  try {
    // ---- trak ui
    ui = await startUi(trace);
    let page = await newPage();
    await page.goto(ui.url);
    await checkViewer(page, 'ui');
    assert.equal(await page.isVisible('#sql'), true);
    await page.fill('#sql-text', "select id, ts, name from slice where name = 'enqueue'");
    await page.click('#sql-run');
    await page.waitForFunction(() => window.trakViewer.state().highlighted.length > 0);
    const s = await state(page);
    const enqueues = Number(execFileSync(trak, ['query', trace, ...METRIC, "select count(*) from slice where name = 'enqueue'"])
      .toString().trim().split('\n').pop());
    assert.ok(enqueues >= 60); // 60 items, and annotations copy the names of long ones
    assert.equal(s.highlighted.length, enqueues);
    assert.match(await page.textContent('#sql-status'), new RegExp(`^${enqueues} rows`));
    await page.click('#sql-result tr.link');
    await page.waitForFunction(() => document.querySelector('#details h2')?.textContent === 'enqueue');
    // The picture docs/ui.md shows: the first half of the trace, the threads and their flows.
    await page.evaluate(() => {
      const v = window.trakViewer, st = v.state();
      v.setRange(st.traceStart, st.traceStart + (st.traceEnd - st.traceStart) / 2);
      v.scrollToTrack(st.rows.find((r) => /^producer/.test(r.label)).track);
    });
    await settle(page);
    await screenshot(page, path.join(outDir, 'ui.png'));
    await page.close();

    // ---- trak html: one file, opened from disk
    const report = path.join(outDir, 'report.html');
    execFileSync(trak, ['html', trace, '-o', report, ...METRIC]);
    const size = fs.statSync(report).size;
    assert.ok(size < 2 * 1024 * 1024, `report is ${size} bytes`);
    page = await newPage();
    const requests = [];
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(`file://${report}`);
    await checkViewer(page, 'html');
    assert.equal(await page.isVisible('#sql'), true); // SQL over the tables in the file (report_test.js)
    assert.deepEqual(requests.filter((u) => !u.startsWith('file:') && !u.startsWith('data:')), []);
    await screenshot(page, path.join(outDir, 'html.png'));
    await page.close();

    // ---- Perfetto's child ordering (tests/data/seed/04-06: tracks with no events)
    const orders = { '04_order_lexicographic': 'Root,A,B', '05_order_chronological': 'Root,B,A',
      '06_order_explicit': 'Root,C,B,A' };
    // A track is a row only once an event uses it, as in Perfetto: the seeds without events
    // get one instant on each child track.
    const withEvents = { '04_order_lexicographic': [11, 12], '06_order_explicit': [11, 12, 13] };
    for (const [seed, want] of Object.entries(orders)) {
      const file = path.join(outDir, `${seed}.html`);
      let input = path.join(__dirname, '../data/seed', `${seed}.pbtxt`);
      if (withEvents[seed]) {
        const events = withEvents[seed].map((u, i) => `packet { trusted_packet_sequence_id: 1 ` +
          `timestamp: ${100 + i} track_event { type: TYPE_INSTANT track_uuid: ${u} name: "e" } }\n`);
        const copy = path.join(outDir, `${seed}.pbtxt`);
        fs.writeFileSync(copy, fs.readFileSync(input, 'utf8') + events.join(''));
        input = copy;
      }
      execFileSync(trak, ['html', input, '-o', file]);
      page = await newPage();
      await page.goto(`file://${file}`);
      const s = await settle(page);
      assert.equal(s.rows.map((r) => r.label).join(), want, seed);
      await page.close();
    }

    // ---- JSON sort indexes: processes and threads by sort index before pid and tid
    const json = path.join(outDir, 'sorted.json');
    const M = (name, pid, tid, args) => ({ ph: 'M', name, pid, tid, args });
    const X = (pid, tid) => ({ ph: 'X', name: 'work', ts: tid, dur: 5, pid, tid });
    fs.writeFileSync(json, JSON.stringify({ traceEvents: [
      M('process_name', 10, 0, { name: 'proc-a' }), M('process_sort_index', 10, 0, { sort_index: 2 }),
      M('process_name', 20, 0, { name: 'proc-b' }), M('process_sort_index', 20, 0, { sort_index: 1 }),
      M('thread_name', 10, 11, { name: 't11' }), M('thread_sort_index', 10, 11, { sort_index: 5 }),
      M('thread_name', 10, 12, { name: 't12' }), M('thread_sort_index', 10, 12, { sort_index: -1 }),
      M('thread_name', 20, 21, { name: 't21' }), X(10, 11), X(10, 12), X(20, 21),
    ] }));
    const sortedHtml = path.join(outDir, 'sorted.html');
    execFileSync(trak, ['html', json, '-o', sortedHtml]);
    page = await newPage();
    await page.goto(`file://${sortedHtml}`);
    const sorted = await settle(page);
    assert.equal(sorted.rows.map((r) => r.label).join(), 'proc-b 20,t21 21,proc-a 10,t12 12,t11 11');
    await page.close();
    assert.deepEqual(errors, []);
    console.log(`ok: ui and html modes; report ${size} bytes; screenshots in ${outDir}`);
  } finally {
    await browser.close();
    if (ui) ui.child.kill('SIGTERM');
  }
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
