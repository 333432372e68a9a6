// End-to-end test of the extension in real VS Code: code-server (run with
// Node 24) with the built thund.vsix installed, driven by playwright-core in
// Debian's Chromium. It opens a temporary copy of testdata/retail with one
// deliberately broken file, and checks what a new user would see:
//   1. the broken file's diagnostic in the Problems view;
//   2. Preview Dataset: the table with the expected first row, paging, sorting;
//   3. the lineage panel: the graph, and a click that opens a dataset's file;
//   4. the notebook view: Run All, and a cell's output table;
//   5. Restricted Mode: in an untrusted copy no SQL runs and the UI says so
//      (a lens where Preview would be, a warning on the command).
// Issue 20 added: decimals keep their scale (preview, diff, notebook); the
// note on columns past the panel's edge; the language mode (Spark Pipeline
// SQL); the row count lens after a re-run; a passed expectation as an
// inlay hint, absent from the Problems view; the lineage graph fitted,
// centred and zoomed, with each node's last run; a notebook error said once.
// Screenshots go to e2e/out/img/, or to THUND_SCREENSHOTS (make screenshots
// sets it to docs/img/, the ones the README shows), so that a test run
// leaves the tracked images alone; failures go to e2e/out/. Every wait is
// bounded; the whole run too.
//
// Environment: THUND_CACHE (default ~/.cache/thund, see setup.sh),
// THUND_E2E_KEEP=1 keeps the temporary folder, THUND_E2E_HEADED=1 shows
// the browser.

import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync, createWriteStream } from 'node:fs';
import { connect, createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { chromium } = require('playwright-core');

const here = dirname(fileURLToPath(import.meta.url));
const ext = resolve(here, '..');
const repo = resolve(ext, '../..');
const cache = process.env.THUND_CACHE || join(homedir(), '.cache', 'thund');
const CODE_SERVER_VERSION = '4.139.1';
const node24 = join(cache, 'node24', 'bin', 'node');
const csEntry = join(cache, `code-server-${CODE_SERVER_VERSION}`, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
const vsix = join(ext, 'thund.vsix');
const imgDir = process.env.THUND_SCREENSHOTS ? resolve(process.env.THUND_SCREENSHOTS) : join(ext, 'e2e', 'out', 'img');
const TOTAL_MS = 10 * 60 * 1000;

const results = [];
const started = Date.now();
const since = () => `${((Date.now() - started) / 1000).toFixed(1)}s`;
const log = (m) => console.log(`[e2e ${since()}] ${m}`);

for (const [what, p] of [
  ['Node 24 (run e2e/setup.sh)', node24],
  ['code-server (run e2e/setup.sh)', csEntry],
  ['thund.vsix (run make vsix)', vsix],
  ['Chromium', '/usr/bin/chromium'],
]) {
  if (!existsSync(p)) {
    console.error(`missing ${what}: ${p}`);
    process.exit(2);
  }
}

const work = mkdtempSync(join(tmpdir(), 'thund-e2e-'));
const children = [];
let browser;

const watchdog = setTimeout(() => {
  console.error(`e2e: overall time limit of ${TOTAL_MS / 1000}s reached`);
  void cleanup().then(() => process.exit(1));
}, TOTAL_MS);

async function cleanup() {
  clearTimeout(watchdog);
  try {
    await browser?.close();
  } catch {
    // already gone
  }
  for (const c of children) {
    try {
      process.kill(-c.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  await sleep(500);
  for (const c of children) {
    try {
      process.kill(-c.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  if (process.env.THUND_E2E_KEEP !== '1') rmSync(work, { recursive: true, force: true });
  else log(`kept ${work}`);
}

function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

async function until(what, fn, timeoutMs = 30000, everyMs = 250) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    await sleep(everyMs);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${last.message})` : ''}`);
}

function portOpen(port) {
  return new Promise((res) => {
    const sock = connect({ host: '127.0.0.1', port, timeout: 1000 });
    sock.on('connect', () => {
      sock.destroy();
      res(true);
    });
    sock.on('error', () => res(false));
    sock.on('timeout', () => {
      sock.destroy();
      res(false);
    });
  });
}

function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.unref();
    s.on('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });
}

/** A copy of testdata/retail, plus a file with a deliberate syntax error. */
function workspace(name) {
  const ws = join(work, name);
  cpSync(join(repo, 'testdata', 'retail'), ws, { recursive: true });
  writeFileSync(
    join(ws, 'transformations', 'broken_orders.sql'),
    '-- A deliberate mistake for the end-to-end test: a misspelt keyword.\nSELECT order_id, amount FORM clean_orders\n',
  );
  return ws;
}

function userData(name, settings) {
  const dir = join(work, name);
  mkdirSync(join(dir, 'User'), { recursive: true });
  writeFileSync(
    join(dir, 'User', 'settings.json'),
    JSON.stringify(
      {
        'telemetry.telemetryLevel': 'off',
        'update.mode': 'none',
        'extensions.autoUpdate': false,
        'extensions.autoCheckUpdates': false,
        'extensions.ignoreRecommendations': true,
        'workbench.startupEditor': 'none',
        'workbench.tips.enabled': false,
        'workbench.enableExperiments': false,
        'workbench.colorTheme': 'Default Dark Modern',
        'chat.disableAIFeatures': true,
        'window.commandCenter': false,
        'editor.minimap.enabled': false,
        'workbench.secondarySideBar.defaultVisibility': 'hidden',
        'workbench.panel.defaultLocation': 'bottom',
        'thund.preview.pageSize': 20,
        'thund.trace.server': 'messages',
        // Typing in the test must produce exactly what it types.
        'editor.quickSuggestions': { other: false, comments: false, strings: false },
        'editor.suggestOnTriggerCharacters': false,
        'editor.acceptSuggestionOnCommitCharacter': false,
        'editor.autoClosingBrackets': 'never',
        'editor.autoClosingQuotes': 'never',
        'editor.autoIndent': 'none',
        ...settings,
      },
      null,
      2,
    ),
  );
  return dir;
}

/** code-server's environment: Node 24 first, no extension gallery (offline). */
function serverEnv() {
  return { ...process.env, PATH: `${dirname(node24)}:${process.env.PATH}`, EXTENSIONS_GALLERY: JSON.stringify({ serviceUrl: '' }) };
}

async function codeServer(dataDir, extDir, folder) {
  const port = await freePort();
  const out = createWriteStream(join(work, `code-server-${port}.log`));
  const child = spawn(
    node24,
    [
      csEntry,
      '--bind-addr', `127.0.0.1:${port}`,
      '--auth', 'none',
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-getting-started-override',
      '--user-data-dir', dataDir,
      '--extensions-dir', extDir,
      folder,
    ],
    { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: serverEnv() },
  );
  children.push(child);
  child.stdout.pipe(out);
  child.stderr.pipe(out);
  const url = `http://127.0.0.1:${port}`;
  await until('code-server to answer /healthz', async () => (await fetch(`${url}/healthz`)).ok, 60000, 500);
  return url;
}

function installExtension(dataDir, extDir) {
  const t0 = Date.now();
  const r = spawnSync(node24, [csEntry, '--user-data-dir', dataDir, '--extensions-dir', extDir, '--install-extension', vsix], {
    encoding: 'utf8',
    timeout: 180000,
    env: serverEnv(),
  });
  if (r.status !== 0) throw new Error(`--install-extension failed (${r.status}): ${r.stdout}\n${r.stderr}`);
  log(`installed thund.vsix in ${Date.now() - t0} ms: ${r.stdout.trim().split('\n').pop()}`);
}

async function step(name, fn) {
  const t0 = Date.now();
  try {
    await fn();
    results.push({ name, ok: true });
    log(`ok - ${name} (${Date.now() - t0} ms)`);
  } catch (e) {
    results.push({ name, ok: false });
    log(`not ok - ${name}: ${e.stack || e}`);
    if (page) {
      try {
        const out = join(ext, 'e2e', 'out');
        mkdirSync(out, { recursive: true });
        await page.screenshot({ path: join(out, `failure-${results.length}.png`) });
        log(`failure screenshot: editors/vscode/e2e/out/failure-${results.length}.png`);
      } catch {
        // page gone
      }
    }
  }
}

let page;

/** Opens the command palette; focus may sit in a webview, so retry from the sidebar. */
async function palette(key) {
  const input = page.locator('.quick-input-widget input');
  for (let i = 0; i < 3; i++) {
    await page.keyboard.press(key);
    try {
      await input.waitFor({ state: 'visible', timeout: 3000 });
      return input;
    } catch {
      await page.keyboard.press('Escape');
      await page.locator('.part.sidebar .title-label').first().click();
    }
  }
  throw new Error(`${key} opened no quick input`);
}

async function command(label, { expectRow } = {}) {
  const input = await palette('F1');
  await input.fill(`>${label}`);
  const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: expectRow ?? label }).first();
  await row.waitFor({ state: 'visible', timeout: 10000 });
  await row.click();
}

async function openFile(name) {
  const input = await palette('Control+P');
  await input.fill(name);
  const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: name }).first();
  await row.waitFor({ state: 'visible', timeout: 15000 });
  await row.click();
  await page.locator(`.tabs-container .tab.active`, { hasText: name }).first().waitFor({ state: 'visible', timeout: 10000 });
}

/** The first frame (webview or notebook output) holding the selector. */
async function frameWith(selector, what, timeoutMs = 60000) {
  return until(
    what,
    async () => {
      for (const f of page.frames()) {
        try {
          if (await f.$(selector)) return f;
        } catch {
          // frame detached while looking
        }
      }
      return undefined;
    },
    timeoutMs,
    500,
  );
}

async function shot(name) {
  mkdirSync(imgDir, { recursive: true });
  await page.screenshot({ path: join(imgDir, name) });
  log(`screenshot ${join(imgDir, name)}`);
}

async function openWorkbench(url, folder) {
  await page.goto(`${url}/?folder=${encodeURIComponent(folder)}`, { timeout: 60000 });
  await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 90000 });
  await page.locator('.statusbar').waitFor({ state: 'visible', timeout: 30000 });
}

async function launch() {
  const profile = mkdtempSync(join(work, 'chromium-'));
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: process.env.THUND_E2E_HEADED !== '1',
    viewport: { width: 1600, height: 1000 },
    timeout: 60000,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ].filter((a) => a !== '--headless' || process.env.THUND_E2E_HEADED !== '1'),
  });
  page = browser.pages()[0] ?? (await browser.newPage());
  page.setDefaultTimeout(15000);
}

async function main() {
  log(`work folder ${work}`);

  // ---------------------------------------------------------- trusted
  const ws = workspace('retail');
  // With a Spark Connect server already up on 127.0.0.1:15002 (make
  // spark-start), the Spark dry run is tested too.
  const spark = await portOpen(15002);
  const data = userData('user-data', {
    'security.workspace.trust.enabled': false,
    ...(spark ? { 'thund.sparkRemote': 'sc://127.0.0.1:15002' } : {}),
  });
  const exts = join(work, 'extensions');
  installExtension(data, exts);
  const url = await codeServer(data, exts, ws);
  log(`code-server at ${url}`);
  await launch();
  await openWorkbench(url, ws);

  await step('status bar shows the pipeline', async () => {
    await page.locator('.statusbar-item', { hasText: 'retail' }).first().waitFor({ state: 'visible', timeout: 60000 });
  });

  await step('a diagnostic in the Problems view', async () => {
    await openFile('broken_orders.sql');
    await page.keyboard.press('Control+Shift+M');
    const marker = page.locator('.markers-panel .monaco-list-row', { hasText: 'syntax error at or near' });
    await marker.first().waitFor({ state: 'visible', timeout: 60000 });
    await page.locator('.statusbar-item', { hasText: 'retail' }).filter({ hasText: '1' }).first().waitFor({ timeout: 15000 });
    await shot('vscode-problems.png');
    await page.keyboard.press('Control+J'); // hide the panel again
  });

  await step('Preview Dataset shows the table with the expected first row', async () => {
    await openFile('clean_orders.sql');
    await command('Thund: Preview Dataset');
    const f = await frameWith('table.thund-table tbody tr', 'the preview table', 90000);
    const head = await f.$$eval('table.thund-table thead th', (ths) => ths.map((t) => t.textContent.trim()));
    if (!head.includes('order_idINT') || !head.includes('unit_priceDECIMAL(10,2)')) throw new Error(`headers: ${head.join(' | ')}`);
    const first = await f.$eval('table.thund-table tbody tr', (tr) => [...tr.cells].map((c) => c.textContent.trim()));
    // DECIMAL(10,2) keeps its two decimals (issue 20: it showed 10.8).
    const want = ['1', '10001', 'C001', 'P10', '2025-03-02', '1', '10.80', '10.80', 'shipped'];
    if (JSON.stringify(first) !== JSON.stringify(want)) throw new Error(`first row ${JSON.stringify(first)}, want ${JSON.stringify(want)}`);
    const stats = await f.$eval('.head .stats', (e) => e.textContent);
    if (!/^56 rows · \d+ ms$/.test(stats)) throw new Error(`stats: ${stats}`);
    const range = await f.$eval('.pager .range', (e) => e.textContent);
    if (range !== 'Rows 1–20 of 56') throw new Error(`range: ${range}`);
    const exps = await f.$$eval('.expectations tbody tr', (trs) => trs.map((t) => t.textContent));
    if (exps.length !== 3 || !exps.some((t) => t.includes('dropped') && t.includes('valid_amount'))) throw new Error(`expectations: ${exps}`);
    // The default split is narrower than the table: the preview says so,
    // and scrolling sideways reaches the last column.
    const note = await until('the note on columns out of view', async () => {
      const t = await f.$eval('.clip-note', (e) => (e.hidden ? '' : e.textContent));
      return t || undefined;
    }, 15000);
    if (!/^columns 1–\d of 8 in view · \d more →$/.test(note)) throw new Error(`clip note: ${note}`);
    // The language mode says what the file is, and the lenses say what ran.
    await page.locator('.statusbar-item', { hasText: 'Spark Pipeline SQL' }).first().waitFor({ timeout: 15000 });
    await page.locator('.codelens-decoration', { hasText: /56 rows in \d+ ms/ }).first().waitFor({ timeout: 30000 });
    // An expectation that passed is a hint at the end of its line, not a problem.
    await page.locator('.monaco-editor .view-line', { hasText: 'known_status' }).filter({ hasText: 'passed on the last run' }).first().waitFor({ timeout: 30000 });
    await shot('vscode-preview.png');
    await f.$eval('.table-wrap', (e) => e.scrollTo({ left: e.scrollWidth }));
    await until('the last column in view', async () => {
      const [wrapRight, lastRight] = await f.$eval('.table-wrap', (e) => [e.getBoundingClientRect().left + e.clientWidth, [...e.querySelectorAll('thead th')].pop().getBoundingClientRect().right]);
      return lastRight <= wrapRight + 1;
    }, 10000);
    let after = '';
    await until('the clip note after scrolling', async () => {
      after = await f.$eval('.clip-note', (e) => e.textContent);
      return /^columns \d–8 of 8 in view · ← \d more$/.test(after);
    }, 5000).catch(() => {
      throw new Error(`clip note after scrolling: ${after}`);
    });
    await f.$eval('.table-wrap', (e) => e.scrollTo({ left: 0 }));
    await page.keyboard.press('Control+Shift+M');
    await page.locator('.markers-panel .monaco-list-row', { hasText: 'has_customer' }).first().waitFor({ timeout: 30000 });
    const problems = await page.locator('.markers-panel .monaco-list-row').allTextContents();
    if (problems.some((t) => t.includes('known_status passed'))) throw new Error(`a passed expectation in the Problems view: ${problems.join(' | ')}`);
    await page.keyboard.press('Control+J');

    // Next page through thund/preview.
    await f.click('button[title="Next page"]');
    await until('page 2', async () => (await f.$eval('.pager .range', (e) => e.textContent)) === 'Rows 21–40 of 56', 30000);
    // Sort the page by order_id, descending (second click).
    await f.click('th[data-col="0"]');
    await f.click('th[data-col="0"]');
    const ids = await f.$$eval('table.thund-table tbody tr', (trs) => trs.map((tr) => Number(tr.cells[1].textContent)));
    for (let i = 1; i < ids.length; i++) if (ids[i - 1] < ids[i]) throw new Error(`not sorted descending: ${ids}`);
  });

  await step('Preview refreshes on save and marks the diff', async () => {
    // Drop the cancelled orders from clean_orders, save, and see the diff.
    await page.keyboard.press('Control+1'); // the editor group left of the preview
    await openFile('clean_orders.sql');
    await page.locator('.monaco-editor .view-lines').first().click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type("\nWHERE lower(status) <> 'cancelled'");
    await page.keyboard.press('Control+S');
    const f = await frameWith('.diff-summary .removed-count', 'the diff after saving', 60000);
    const summary = await f.$eval('.diff-summary', (e) => e.textContent);
    if (!/\+0 added, −4 removed/.test(summary)) throw new Error(`diff summary: ${summary}`);
    // The removed rows keep their decimals too.
    const removed = await f.$eval('section.removed tbody tr', (tr) => [...tr.cells].map((c) => c.textContent.trim()));
    if (removed[6] !== '11.00') throw new Error(`first removed row: ${removed}`);
    await f.$eval('section.removed', (e) => e.scrollIntoView());
    // The lens follows the re-run: 52 rows now, not the 56 of the first preview.
    await page.locator('.codelens-decoration', { hasText: /52 rows in \d+ ms/ }).first().waitFor({ timeout: 30000 });
    await shot('vscode-preview-diff.png');
  });

  await step('the editor: Spark Pipeline SQL, lenses with the row count, a passed expectation as a hint', async () => {
    await page.keyboard.press('Control+1');
    await openFile('clean_orders.sql');
    await command('View: Toggle Maximize Editor Group', { expectRow: 'Maximize Editor Group' });
    await sleep(800);
    const hint = page.locator('.monaco-editor .view-line', { hasText: 'known_status' }).filter({ hasText: 'passed on the last run' }).first();
    await hint.waitFor({ timeout: 30000 });
    // The hint is drawn inside the line, after its text.
    const line = (await hint.textContent()).replace(/\u00a0/g, ' ');
    if (!/'returned'\)\s*✓ passed on the last run$/.test(line)) throw new Error(`pragma line: ${line}`);
    await page.locator('.codelens-decoration', { hasText: /52 rows in \d+ ms/ }).first().waitFor({ timeout: 15000 });
    await shot('vscode-editor.png');
    await command('View: Toggle Maximize Editor Group', { expectRow: 'Maximize Editor Group' });
  });

  await step('Show Lineage draws the graph and opens a clicked dataset', async () => {
    await command('Thund: Show Lineage');
    const f = await frameWith('svg.lineage g.node', 'the lineage graph', 60000);
    const n = await f.$$eval('svg.lineage g.node', (gs) => gs.length);
    if (n !== 12) throw new Error(`nodes: ${n}, want 12 (3 sources, 9 datasets)`);
    await until('the broken dataset marked with its error', async () => (await f.$$('g.node.has-errors')).length === 1, 30000);
    // The last preview of clean_orders on its node: rows, time, status.
    const run = await until('clean_orders\'s last run on its node', () =>
      f.$eval('g.node[data-id="clean_orders"]', (g) => (g.classList.contains('phase-completed') ? g.querySelector('text.run')?.firstChild?.textContent : undefined)), 30000);
    if (!/^✓ 52 rows · \d+ ms$/.test(run)) throw new Error(`clean_orders run line: ${run}`);
    // Room for the whole graph in the screenshot: maximise the group, hide the sidebar.
    await command('View: Toggle Maximize Editor Group', { expectRow: 'Maximize Editor Group' });
    await page.keyboard.press('Control+B');
    await sleep(800);
    // Fitted and centred in the panel.
    const fit = async () =>
      f.$eval('.graph-wrap', (w) => {
        const s = w.querySelector('svg.lineage').getBoundingClientRect();
        const b = w.getBoundingClientRect();
        return { left: s.left - b.left, right: b.right - s.right, width: s.width, wrap: w.clientWidth, level: document.querySelector('.zoom-level').textContent };
      });
    const g1 = await until('the graph fitted', async () => {
      const g = await fit();
      return g.width <= g.wrap + 1 && Math.abs(g.left - g.right) <= 3 ? g : undefined;
    }, 10000);
    await shot('vscode-lineage.png');
    await f.click('button[data-zoom="in"]');
    const g2 = await fit();
    if (Math.abs(g2.width / g1.width - 1.25) > 0.02 || g2.level.includes('fit')) throw new Error(`zoom in: ${JSON.stringify(g1)} -> ${JSON.stringify(g2)}`);
    await f.click('button[data-zoom="fit"]');
    const g3 = await fit();
    if (Math.abs(g3.width - g1.width) > 1) throw new Error(`fit again: ${JSON.stringify(g3)}, first ${JSON.stringify(g1)}`);
    await page.keyboard.press('Control+B');
    await command('View: Toggle Maximize Editor Group', { expectRow: 'Maximize Editor Group' });
    await f.click('g.node[data-uri$="customer_ranking.sql"]');
    await page.locator('.tabs-container .tab.active', { hasText: 'customer_ranking.sql' }).waitFor({ timeout: 15000 });
  });

  await step('the notebook view runs the pipeline and shows a cell output table', async () => {
    await command('View: Close All Editors', { expectRow: 'Close All Editors' });
    await command('Thund: Open Pipeline as Notebook');
    await page.locator('.notebook-editor .code-cell-row').first().waitFor({ state: 'visible', timeout: 60000 });
    await page.locator('.statusbar-item', { hasText: /Cell \d+ of 8/ }).first().waitFor({ timeout: 15000 }).catch(() => undefined);
    await command('Notebook: Run All', { expectRow: 'Run All' });
    // A kernel picker may ask first; the Thund controller is the only one.
    try {
      const pick = page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Thund' }).first();
      await pick.waitFor({ state: 'visible', timeout: 3000 });
      await pick.click();
    } catch {
      // already selected
    }
    const f = await frameWith('.thund-nb table.thund-table tbody tr', 'a cell output table', 120000);
    const heads = await f.$$eval('.thund-nb .nb-head strong', (s) => s.map((e) => e.textContent));
    if (!heads.includes('clean_orders')) throw new Error(`outputs: ${heads}`);
    const first = await f.$eval('.thund-nb table.thund-table tbody tr', (tr) => [...tr.cells].map((c) => c.textContent.trim()));
    if (first[1] !== '10001' || first[2] !== 'C001' || first[6] !== '10.80') throw new Error(`first output row: ${first}`);
    // The first cell is the broken file: its output says why it cannot run,
    // once, with the error's own lines.
    await until('the broken cell\'s error output', async () => (await f.$$('.thund-nb .error-banner')).length >= 1, 30000);
    const said = await f.$$eval('.thund-nb', (ds) => ds.map((d) => d.textContent).join('\n').split('syntax error at or near').length - 1);
    if (said !== 1) throw new Error(`the broken cell's error is said ${said} times`);
    const box = await page.locator('.notebook-editor').first().boundingBox();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.wheel(0, 560);
    await sleep(800);
    await shot('vscode-notebook.png');
  });

  await step('a notebook cell and its file edit each other', async () => {
    // The first cell is broken_orders.sql. Type at its end, save the
    // notebook, and the file on disk has the edit.
    const file = join(ws, 'transformations', 'broken_orders.sql');
    await page.mouse.wheel(0, -2000);
    await sleep(500);
    const cell = page.locator('.notebook-editor .code-cell-row').first();
    await cell.locator('.monaco-editor .view-lines').click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('\n-- edited in the notebook');
    await page.keyboard.press('Control+S');
    await until('the cell edit saved to the file', () => readFileSync(file, 'utf8').includes('-- edited in the notebook'), 15000);
    // The reverse: the file changes on disk, and the cell follows.
    writeFileSync(file, readFileSync(file, 'utf8') + '-- changed on disk\n');
    await until(
      'the disk change in the cell',
      async () => ((await cell.locator('.monaco-editor .view-lines').textContent()) ?? '').replace(/\u00a0/g, ' ').includes('changed on disk'),
      20000,
    );
  });

  if (spark) {
    await step('Spark Dry Run on the Spark Connect server', async () => {
      await command('View: Close All Editors', { expectRow: 'Close All Editors' });
      await openFile('clean_orders.sql');
      await page.locator('.codelens-decoration', { hasText: 'Spark dry run' }).first().waitFor({ timeout: 30000 });
      await command('Thund: Spark Dry Run');
      await page.locator('.notifications-toasts', { hasText: 'Spark dry run on spark-4.1' }).first().waitFor({ state: 'visible', timeout: 180000 });
      await shot('vscode-spark-dry-run.png');
    });
  } else {
    log('no Spark Connect server on 127.0.0.1:15002 (make spark-start): Spark dry run not tested');
  }

  await (await import('./columns.mjs')).default({ page, step, openFile, command, palette, until, sleep, shot, log, ws }); // issue 19: hover, rename, quick fix (last: it renames a column)
  await browser.close();
  browser = undefined;

  // ---------------------------------------------------------- untrusted
  const ws2 = workspace('retail-untrusted');
  // This copy keeps .sql files in the sql language (thund.sqlLanguage), as
  // a user with another SQL extension would: Thund still serves them.
  const data2 = userData('user-data-untrusted', {
    'security.workspace.trust.enabled': true,
    'security.workspace.trust.startupPrompt': 'never',
    'thund.sqlLanguage': 'sql',
  });
  const exts2 = join(work, 'extensions-untrusted');
  installExtension(data2, exts2);
  const url2 = await codeServer(data2, exts2, ws2);
  await launch();
  await openWorkbench(url2, ws2);

  await step('Restricted Mode: diagnostics only, no SQL, and the UI says so', async () => {
    await page.locator('.statusbar-item', { hasText: 'Restricted' }).first().waitFor({ state: 'visible', timeout: 60000 });
    await openFile('broken_orders.sql');
    await page.keyboard.press('Control+Shift+M');
    await page.locator('.markers-panel .monaco-list-row', { hasText: 'syntax error at or near' }).first().waitFor({ timeout: 60000 });
    await openFile('clean_orders.sql');
    await page.locator('.statusbar-item', { hasText: 'MS SQL' }).first().waitFor({ timeout: 15000 });
    // The lens the README promises, where Preview and Run would be.
    await page.locator('.codelens-decoration', { hasText: 'Restricted Mode: Thund runs no SQL here' }).first().waitFor({ timeout: 60000 });
    if ((await page.locator('.codelens-decoration', { hasText: 'Run downstream' }).count()) > 0) throw new Error('a Run downstream lens in Restricted Mode');
    await command('Thund: Preview Dataset');
    await page.locator('.notifications-toasts', { hasText: 'Restricted Mode' }).first().waitFor({ state: 'visible', timeout: 15000 });
    await shot('vscode-restricted.png');
    if (page.frames().some((f) => f.url().includes('thund.preview'))) throw new Error('a preview panel opened in Restricted Mode');
  });
}

let code = 0;
try {
  await main();
} catch (e) {
  log(`fatal: ${e.stack || e}`);
  results.push({ name: 'setup', ok: false });
}
await cleanup();
const passed = results.filter((r) => r.ok).length;
const failed = results.length - passed;
if (failed > 0) code = 1;
log(`total ${since()}`);
console.log(`e2e: ${passed} passed, ${failed} failed`);
process.exit(code);
