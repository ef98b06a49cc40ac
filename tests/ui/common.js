// Helpers shared by the viewer's browser tests: starting `trak ui`, waiting for the page to have
// drawn what its view needs, and a screenshot checked not to be blank.
'use strict';
const assert = require('node:assert/strict');
const { execFileSync, spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

// Starts `trak ui TRACE ARGS...` (no TRACE when null); resolves to {child, url} once it prints
// its URL.
function startUi(trak, trace, args = []) {
  return new Promise((resolve, reject) => {
    const argv = ['ui', ...(trace ? [trace] : []), ...args];
    const child = spawn(trak, argv, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/at (http:\/\/127\.0\.0\.1:\d+\/)/);
      if (m) resolve({ child, url: m[1] });
    });
    child.on('exit', (code) => reject(new Error(`trak ui exited with ${code}: ${out}`)));
  });
}

const state = (page) => page.evaluate(() => window.trakViewer.state());

// Waits until the page has the data its current view needs and has drawn it.
async function settle(page) {
  await page.waitForFunction(() => {
    const s = window.trakViewer && window.trakViewer.state();
    return s && s.answers > 0 && s.idle && s.fresh;
  }, null, { timeout: 30000 });
  await page.waitForTimeout(100); // one more frame
  return state(page);
}

// Counts the distinct colours of a PNG, decoded by the browser itself.
async function distinctColours(page, png) {
  return page.evaluate(async (b64) => {
    const img = new Image();
    img.src = `data:image/png;base64,${b64}`;
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.width; c.height = img.height;
    const g = c.getContext('2d');
    g.drawImage(img, 0, 0);
    const px = g.getImageData(0, 0, c.width, c.height).data;
    const seen = new Set();
    for (let i = 0; i < px.length; i += 4 * 7) seen.add((px[i] << 16) | (px[i + 1] << 8) | px[i + 2]);
    return seen.size;
  }, png.toString('base64'));
}

// Saves the page's screenshot to `file` and checks it is not blank (more than 20 colours).
async function screenshot(page, file) {
  const png = await page.screenshot({ path: file });
  const colours = await distinctColours(page, png);
  assert.ok(colours > 20, `screenshot ${file} looks blank (${colours} colours)`);
}

// Makes OUT_DIR, the demo trace in it (by SDK_DEMO) and starts Debian's chromium (or
// $CHROMIUM) headless: resolves to {trace, browser}.
async function setUp(sdkDemo, outDir) {
  const { chromium } = require('playwright-core');
  fs.mkdirSync(outDir, { recursive: true });
  const trace = path.join(outDir, 'sdk_demo.pftrace');
  execFileSync(sdkDemo, [trace], { stdio: 'ignore' });
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'] });
  return { trace, browser };
}

// Drags with the mouse from (x0, y0) to (x1, y1), page coordinates: an area selection on the
// timeline.
async function drag(page, x0, y0, x1, y1) {
  await page.mouse.move(x0, y0);
  await page.mouse.down();
  await page.mouse.move(x1, y1, { steps: 8 });
  await page.mouse.up();
}

// Drags over the timeline (its box `box`, labels LABEL_W wide) from the middle of the row labelled
// `from` to the one labelled `to`, from `left` pixels after the labels to `right` pixels before
// the right edge: an area selection over those rows.
async function dragRows(page, box, from, to, left, right) {
  const s = await settle(page);
  const a = s.rows.find((r) => r.label === from), b = s.rows.find((r) => r.label === to);
  assert.ok(a && b, `rows ${from} and ${to}`);
  await drag(page, box.x + 230 + left, box.y + a.top + 8, box.x + box.width - right, box.y + b.top + 8);
}

// Drags over the timeline (box `box`) from row `from` to row `to` (state rows), from `left` pixels
// after the labels to `right` pixels before the right edge, and opens the area's Counters tab:
// resolves to the page's area state.
async function areaCounters(page, box, from, to, left, right) {
  await drag(page, box.x + 230 + left, box.y + from.top + 10, box.x + box.width - right, box.y + to.top + 10);
  await page.waitForSelector('button[data-tab=counters]');
  await page.click('button[data-tab=counters]');
  await page.waitForSelector('#agg-counters');
  return (await state(page)).area;
}

// Starts chromium and `trak ui TRACE`, runs `body(context, url)` in a browser context whose page
// errors fail the test, then stops both.
async function withUi(trak, trace, outDir, body) {
  const { chromium } = require('playwright-core');
  fs.mkdirSync(outDir, { recursive: true });
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'] });
  const errors = [];
  let ui = null;
  try {
    ui = await startUi(trak, trace);
    // 940 px: the timeline the tests lay out rows in is as tall as it was at 900 before the
    // minimap's 40 px strip above it.
    const context = await browser.newContext({ viewport: { width: 1280, height: 940 } });
    context.on('page', (p) => p.on('pageerror', (e) => errors.push(String(e))));
    await body(context, ui.url);
    assert.deepEqual(errors, []);
  } finally {
    if (ui) ui.child.kill('SIGTERM');
    await browser.close();
  }
}

// A new page of `context` at `url`: resolves to {page, box (the timeline's)}.
async function openPage(context, url) {
  const page = await context.newPage();
  await page.goto(url);
  return { page, box: await page.locator('#timeline').boundingBox() };
}

// Writes `trak html TRACE` to FILE and opens it in a new page of `context`, recording requests:
// resolves to {page, box (the timeline's), requests, noRequest () => checks none left the file}.
async function openReport(context, trak, trace, file) {
  execFileSync(trak, ['html', trace, '-o', file]);
  const page = await context.newPage();
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(`file://${file}`);
  const box = await page.locator('#timeline').boundingBox();
  const noRequest = () => assert.deepEqual(requests.filter((u) => !u.startsWith('file:') && !u.startsWith('data:')), []);
  return { page, box, requests, noRequest };
}

// Rows of `trak query TRACE SQL` (CSV with a header) as arrays of strings.
function query(trak, trace, sql) {
  const lines = execFileSync(trak, ['query', trace, sql]).toString().trim().split('\n').slice(1);
  return lines.map((l) => l.match(/("([^"]|"")*"|[^,]*)(,|$)/g).slice(0, -1).map((c) => c.replace(/,$/, '').replace(/^"|"$/g, '').replace(/""/g, '"')));
}

// The arguments of a script run as `node NAME_test.js TRAK TRACE OUT_DIR`, with query (SQL
// through `trak query` on TRACE) and screenshot (a file name in OUT_DIR) bound to them.
function scriptArgs() {
  const [trak, trace, outDir] = process.argv.slice(2);
  return { trak, trace, outDir, query: (sql) => query(trak, trace, sql),
    screenshot: (page, name) => screenshot(page, path.join(outDir, name)) };
}

module.exports = { scriptArgs, startUi, state, settle, screenshot, setUp, query, drag, dragRows, areaCounters, withUi, openPage, openReport };
