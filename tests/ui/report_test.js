// Browser tests of the viewer's SQL in a `trak html` report (sql.js over the tables the file
// holds, with no server and no request; search by an arg's value through them) and of opening a trace from the page of `trak ui`
// (started without a trace, then another trace dropped on it), driven as a person would in
// Debian's chromium through playwright-core and checked from the DOM and the drawn state. Each
// saves a screenshot in OUT_DIR, checked not to be blank.
//   node report_test.js TRAK SDK_DEMO OUT_DIR
'use strict';
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const common = require('./common.js');

const [trak, sdkDemo, outDir] = process.argv.slice(2);
const { state, settle } = common;
const screenshot = (page, name) => common.screenshot(page, path.join(outDir, name));

// Rows of `trak query TRACE SQL` (CSV with a header, no quoted commas in what is asked here).
function query(trace, sql) {
  const lines = execFileSync(trak, ['query', trace, sql]).toString().trim().split('\n').slice(1);
  return lines.map((l) => l.split(',').map((c) => c.replace(/^"|"$/g, '')));
}

async function statusIs(page, re) {
  try {
    await page.waitForFunction((src) => new RegExp(src).test(document.getElementById('sql-status').textContent), re.source, { timeout: 20000 });
  } catch (e) {
    throw new Error(`SQL status is '${await page.textContent('#sql-status')}', not ${re}`);
  }
}

// Runs `sql` in the SQL panel and waits for its status to match `re`.
async function runSql(page, sql, re) {
  await page.fill('#sql-text', sql);
  await page.click('#sql-run');
  await statusIs(page, re);
}

// The SQL panel of a report opened from disk answers from the tables in the file.
async function reportSql(browser, trace) {
  const file = path.join(outDir, 'report_sql.html');
  execFileSync(trak, ['html', trace, '-o', file]);
  const page = await browser.newPage();
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(`file://${file}`);
  await settle(page);
  assert.equal(await page.isVisible('#sql'), true);
  // Aggregates as `trak query` gives them.
  const sql = 'select name, count(*) as n, sum(dur) as total from slice group by name order by total desc, name limit 5';
  await runSql(page, sql, /^5 rows/);
  const cells = await page.$$eval('#sql-result tr', (trs) => trs.slice(1).map((tr) => [...tr.children].map((td) => td.textContent)));
  assert.deepEqual(cells, query(trace, sql));
  // Joins over threads and args work too: the tables are trak's own.
  const argSql = "select count(*) from slice s join args a using (arg_set_id) where a.key = 'debug.item'";
  await runSql(page, argSql, /^1 rows/);
  assert.equal(await page.textContent('#sql-result td'), query(trace, argSql)[0][0]);
  // Slices a result names are highlighted; a click on a row selects its slice.
  const longest = query(trace, 'select id, name from slice order by dur desc, id limit 3');
  await runSql(page, 'select id, name from slice order by dur desc, id limit 3', /3 slices highlighted/);
  assert.deepEqual((await state(page)).highlighted.sort(), longest.map((r) => Number(r[0])).sort());
  await page.click('#sql-result tr.link');
  await page.waitForFunction((n) => document.querySelector('#details h2')?.textContent === n, longest[0][1]);
  // Pages of 10000 rows; several statements answer with the last one's rows.
  await runSql(page, 'create table if not exists t as with recursive c(x) as (select 1 union all select x + 1 from c limit 25000) select x from c; select x from t',
    /^10000\+ rows/);
  await page.click('#sql-next');
  await statusIs(page, /^rows 10001\u201320000/);
  await page.click('#sql-next');
  await statusIs(page, /^rows 20001\u201325000/);
  assert.equal(await page.isDisabled('#sql-next'), true);
  // A bad query says what went wrong; the ':' omnibox runs SQL too.
  await runSql(page, 'select 1; select * from no_such_table', /statement 2: no such table: no_such_table/);
  await page.fill('#search', ':select count(*) from slice');
  await page.press('#search', 'Enter');
  await statusIs(page, /^1 rows/);
  assert.equal(await page.textContent('#sql-result td'), query(trace, 'select count(*) from slice')[0][0]);
  await runSql(page, 'select id, ts, dur, name from slice order by dur desc limit 20', /^20 rows/);
  assert.deepEqual(requests.filter((u) => !u.startsWith('file:') && !u.startsWith('data:')), []);
  await screenshot(page, 'ui-html-sql.png');
  await page.close();

  // --max-sql-mb 0: no tables in the file, and the panel says how to get SQL.
  const bare = path.join(outDir, 'report_nosql.html');
  execFileSync(trak, ['html', trace, '-o', bare, '--max-sql-mb', '0']);
  assert.ok(fs.statSync(bare).size < fs.statSync(file).size - 300000);
  const p2 = await browser.newPage();
  await p2.goto(`file://${bare}`);
  await settle(p2);
  await runSql(p2, 'select 1', /trak ui/);
  assert.equal(await p2.getAttribute('#sql-status', 'class'), 'error');
  await p2.close();
}

// `trak ui` started with no trace: the page says so; Open (a file chooser) loads one, a file
// dropped on the page loads another, and the page starts over on each; a file over the size
// limit or one that is not a trace leaves the trace served as it was, and the page says why.
async function openFromPage(context, trace) {
  const ui = await common.startUi(trak, null, ['--max-open-mb', '1']);
  try {
    const page = await context.newPage();
    await page.goto(ui.url);
    await page.waitForFunction(() => /No trace yet/.test(document.getElementById('notice').textContent));
    assert.equal((await state(page)).rows.length, 0);
    assert.equal(await page.isVisible('#open'), true);
    // Open... and choose the demo trace.
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.click('#open')]);
    await Promise.all([page.waitForEvent('load'), chooser.setFiles(trace)]);
    let s = await settle(page);
    assert.equal(await page.textContent('#title'), path.basename(trace));
    assert.ok(s.rows.some((r) => /^producer/.test(r.label)), s.rows.map((r) => r.label).join());
    assert.ok(s.slices.length > 10);
    assert.equal(await page.isVisible('#notice'), false);
    await screenshot(page, 'ui-open.png');
    // A file dropped on the page, as from a file manager.
    const drop = async (name, text) => {
      const dt = await page.evaluateHandle(([n, t]) => {
        const d = new DataTransfer();
        d.items.add(new File([t], n));
        return d;
      }, [name, text]);
      await page.dispatchEvent('#main', 'dragover', { dataTransfer: dt });
      await page.dispatchEvent('#main', 'drop', { dataTransfer: dt });
    };
    const events = [];
    for (let i = 0; i < 20; i++) events.push({ ph: 'X', name: i % 2 ? 'dropped' : 'work', ts: i * 10, dur: 8, pid: 3, tid: 4 });
    await Promise.all([page.waitForEvent('load'), drop('dropped.json', JSON.stringify({ traceEvents: events }))]);
    s = await settle(page);
    assert.equal(await page.textContent('#title'), 'dropped.json');
    assert.deepEqual([...new Set(s.slices.map((x) => x.name))].sort(), ['dropped', 'work']);
    // Too large (over --max-open-mb 1), then not a trace: the page says why and keeps the trace.
    await drop('big.json', `{"traceEvents":[${' '.repeat(1100000)}]}`);
    await page.waitForFunction(() => /Could not open big.json: the trace is larger than --max-open-mb/.test(document.getElementById('notice').textContent));
    await drop('notes.txt', 'just some notes');
    await page.waitForFunction(() => /Could not open notes.txt: no events found/.test(document.getElementById('notice').textContent));
    assert.equal(await page.textContent('#title'), 'dropped.json');
    await runSql(page, 'select count(*) from slice', /^1 rows/);
    assert.equal(await page.textContent('#sql-result td'), '20');
    await page.close();
  } finally {
    ui.child.kill('SIGTERM');
  }
}

// Search in a report with more slices than it holds details of (the 2000 longest): an arg's
// value of a short slice (no details inlined) is still found, through the tables in the file.
async function reportSearch(browser) {
  const events = [];
  for (let i = 0; i < 2100; i++) {
    events.push({ ph: 'X', name: `s${i % 7}`, ts: i * 3000, dur: 2500 - i, pid: 1, tid: 1 + (i % 3),
      args: { tag: i === 2090 ? 'needle_42' : `hay ${i}` } });
  }
  const trace = path.join(outDir, 'search.json'), file = path.join(outDir, 'report_search.html');
  fs.writeFileSync(trace, JSON.stringify({ traceEvents: events }));
  execFileSync(trak, ['html', trace, '-o', file]);
  const [[id]] = query(trace, "select s.id from slice s join args a using (arg_set_id) where a.display_value = 'needle_42'");
  const page = await browser.newPage();
  await page.goto(`file://${file}`);
  await settle(page);
  await page.fill('#search', 'NEEDLE_42'); // case-insensitive; '_' is not a wildcard
  await page.press('#search', 'Enter');
  await page.waitForFunction(() => /^1 \/ 1$/.test(document.getElementById('search-status').textContent));
  await page.waitForFunction((want) => window.trakViewer.state().selected === want, Number(id));
  await page.fill('#search', 'needle%42');
  await page.press('#search', 'Enter');
  await page.waitForFunction(() => /no match/i.test(document.getElementById('search-status').textContent));
  await page.close();
}

(async () => {
  const { trace, browser } = await common.setUp(sdkDemo, outDir);
  const errors = [];
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    context.on('page', (p) => p.on('pageerror', (e) => errors.push(String(e))));
    await reportSql(context, trace);
    await reportSearch(context);
    await openFromPage(context, trace);
    assert.deepEqual(errors, []);
    console.log(`ok: report SQL, opening traces from the page; screenshots in ${outDir}`);
  } finally {
    await browser.close();
  }
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
