// Browser tests of the viewer's minimap on a checked-in systrace text trace
// (tests/data/systrace/ui_sched.systrace: slices and scheduling), in `trak ui` and in a
// `trak html` report, driven as a person would in Debian's chromium through playwright-core: the
// strip above the tracks holds the events per bucket of the whole trace, as the same SQL through
// `trak query` counts them (the server's answer bucket for bucket; the report's in total), its
// bars drawn on the canvas; after zooming in, the window drawn on it is the view's; a click
// centres the view there and a drag of the window moves the view with the cursor, clamped to the
// trace. The screenshot goes to OUT_DIR (docs/ui.md shows it), checked not to be blank.
//   node minimap_test.js TRAK TRACE OUT_DIR
'use strict';
const assert = require('node:assert/strict');
const common = require('./common.js');

const { trak, trace, outDir, query, screenshot } = common.scriptArgs();
const { state, settle } = common;
const LABEL_W = 230;

// The events per bucket of px ns from start to end, by SQL: slices and the scheduling slices of
// threads that are not idle, by their start.
function density(start, end, px) {
  const rows = query(`SELECT (ts - ${start}) / ${px} AS b, count(*) FROM (SELECT ts FROM slice ` +
    'UNION ALL SELECT ts FROM sched WHERE utid NOT IN (SELECT utid FROM thread WHERE is_idle)) ' +
    `WHERE ts BETWEEN ${start} AND ${end} GROUP BY b ORDER BY b`);
  const out = new Array(Math.floor((end - start) / px) + 1).fill(0);
  for (const [b, n] of rows) out[Number(b)] = Number(n);
  return out;
}

// The colour of the minimap's canvas at (x, y) of the strip.
const pixel = (page, x, y) => page.evaluate(([px, py]) => [...document.getElementById('minimap').getContext('2d')
  .getImageData(Math.round(px * devicePixelRatio), Math.round(py * devicePixelRatio), 1, 1).data].slice(0, 3), [x, y]);

async function minimap(page, box, server, shots) {
  await settle(page);
  await page.waitForFunction(() => window.trakViewer.state().minimap.loaded);
  let s = await state(page);
  const m = s.minimap, mbox = await page.locator('#minimap').boundingBox();
  assert.ok(mbox.y + mbox.height <= box.y + 1 && mbox.height >= 30, `the strip is above the tracks: ${JSON.stringify(mbox)}`);
  const plotW = box.width - LABEL_W, span = s.traceEnd - s.traceStart;
  const start = Math.floor(s.traceStart), end = Math.ceil(s.traceEnd);
  assert.equal(m.px, Math.max(1, Math.ceil((end - start + 1) / plotW)));
  const want = density(start, end, m.px), total = want.reduce((a, b) => a + b, 0);
  assert.ok(total > 100, `${total} events`);
  if (server) { // the server's answer, bucket for bucket
    const got = await page.evaluate((q) => fetch(`api/density?${q}`).then((r) => r.json()), `start=${start}&end=${end}&px=${m.px}`);
    assert.deepEqual(got, want);
    assert.equal(m.buckets, want.length);
    assert.equal(m.max, Math.max(...want));
    assert.equal(m.nonzero, want.filter((n) => n > 0).length);
  }
  assert.equal(m.total, total); // the report's finer buckets summed into the page's
  // The fullest bucket's bar is drawn (the page's blue), the strip's top left of it is not.
  const j = m.counts.indexOf(m.max);
  const bx = Math.floor(LABEL_W + ((j * m.px) / span) * plotW);
  const bar = await pixel(page, Math.min(bx, mbox.width - 2), mbox.height - 5);
  assert.ok(bar[2] > bar[0] + 50, `bar colour ${bar} at ${bx}`);
  // The whole trace in view: the window spans the plot.
  assert.ok(Math.abs(m.window[0] - LABEL_W) <= 1 && Math.abs(m.window[1] - mbox.width) <= 1, JSON.stringify(m.window));

  // Zoomed in, the window is the view's part of the trace.
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  for (let i = 0; i < 6; i++) await page.keyboard.press('w');
  s = await settle(page);
  const vspan = s.end - s.start;
  assert.ok(vspan < span / 3, `zoomed in: ${vspan} of ${span}`);
  const xOf = (t) => LABEL_W + ((t - s.traceStart) / span) * plotW;
  assert.ok(Math.abs(s.minimap.window[0] - xOf(s.start)) < 1.5 && Math.abs(s.minimap.window[1] - xOf(s.end)) < 1.5,
    `${JSON.stringify(s.minimap.window)} vs ${xOf(s.start)}-${xOf(s.end)}`);
  const inside = await pixel(page, (s.minimap.window[0] + s.minimap.window[1]) / 2, 3);
  const outside = await pixel(page, s.minimap.window[0] > LABEL_W + 20 ? LABEL_W + 5 : mbox.width - 5, 3);
  assert.ok(outside[0] < inside[0] - 20, `dimmed outside the window: ${outside} vs ${inside}`);

  // A click at 80% of the plot centres the view there, its span kept.
  const cx = LABEL_W + plotW * 0.8;
  await page.mouse.click(mbox.x + cx, mbox.y + mbox.height / 2);
  s = await settle(page);
  const tol = span / plotW + 1;
  assert.ok(Math.abs(s.end - s.start - vspan) < 2, `span kept: ${s.end - s.start} vs ${vspan}`);
  const t = s.traceStart + ((cx - LABEL_W) / plotW) * span;
  assert.ok(Math.abs((s.start + s.end) / 2 - t) <= tol, `centred at ${t}: ${s.start}-${s.end}`);

  // Dragging the window 25% of the plot to the left moves the view as far in time.
  const from = (s.minimap.window[0] + s.minimap.window[1]) / 2, before = s.start;
  await common.drag(page, mbox.x + from, mbox.y + mbox.height / 2, mbox.x + from - plotW * 0.25, mbox.y + mbox.height / 2);
  s = await settle(page);
  assert.ok(Math.abs(before - s.start - span * 0.25) <= 2 * tol, `moved ${before - s.start} of ${span * 0.25}`);
  assert.ok(Math.abs(s.end - s.start - vspan) < 2);
  if (shots) await screenshot(page, 'ui-minimap.png');

  // Dragged past the trace's start, the view stops there.
  const w = s.minimap.window;
  await common.drag(page, mbox.x + (w[0] + w[1]) / 2, mbox.y + 10, mbox.x + LABEL_W - 100, mbox.y + 10);
  s = await settle(page);
  assert.equal(s.start, s.traceStart);
  assert.ok(Math.abs(s.minimap.window[0] - LABEL_W) <= 1);
}

common.withUi(trak, trace, outDir, async (context, url) => {
  const { page, box } = await common.openPage(context, url);
  await minimap(page, box, true, true);
  await page.close();
  const r = await common.openReport(context, trak, trace, `${outDir}/report_minimap.html`);
  await minimap(r.page, r.box, false, false);
  r.noRequest();
  await r.page.close();
  console.log(`ok: the minimap in trak ui and trak html; screenshot in ${outDir}`);
}).catch((e) => {
  console.error(e);
  process.exit(1);
});
