// Column-level cases of the VS Code end-to-end test (issue 19, point 6),
// run by run.mjs in its trusted workspace, after its own cases, with VS
// Code's own UI (no command of the extension):
//   1. a quick fix: a column misspelt in the editor, Ctrl+. and the
//      offered "Change to", saved to disk as the file was;
//   2. a hover on a column read from an upstream dataset, giving where the
//      column is computed;
//   3. a rename (F2) of a column, reaching its definition upstream and its
//      readers in other files, saved to disk.
// The workspace is left with the column renamed: run it last.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The 1-based line and column of needle's first occurrence (plus delta). */
function lineCol(text, needle, delta = 0) {
  const at = text.indexOf(needle);
  if (at < 0) throw new Error(`${JSON.stringify(needle)} is not in the file`);
  const before = text.slice(0, at + delta);
  const line = before.split('\n').length;
  return { line, column: at + delta - before.lastIndexOf('\n') };
}

/**
 * Runs the column cases.
 * @param {object} t run.mjs's page and helpers: page, step, openFile,
 *   command, palette, until, sleep, shot, log; ws is the workspace folder.
 */
export default async function columnCases(t) {
  const { page, step, openFile, command, palette, until, sleep, ws } = t;
  const tr = join(ws, 'transformations');

  /** Moves the cursor of the active editor with Go to Line (:line:column). */
  async function cursorAt(text, needle, delta) {
    const { line, column } = lineCol(text, needle, delta);
    const input = await palette('Control+P');
    await input.fill(`:${line}:${column}`);
    await page.keyboard.press('Enter');
    await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 5000 });
    await page
      .locator('.statusbar-item', { hasText: `Ln ${line}, Col ${column}` })
      .first()
      .waitFor({ timeout: 5000 });
  }

  await command('View: Close All Editors', { expectRow: 'Close All Editors' });

  const lines = join(tr, 'order_lines.sql');
  const linesText = readFileSync(lines, 'utf8');
  await step('columns: a quick fix for a misspelt column, from the light bulb menu', async () => {
    // Misspell o.amount as o.amont in the editor (the user's own typing) and
    // save it, so the file on disk holds the typo; then fix it with Ctrl+.
    // and the offered "Change to o.amount", and save again: the file on disk
    // must be back to what it was, which only the applied fix can do.
    const misspelt = linesText.replace('o.amount,', 'o.amont,');
    const editorText = async () =>
      ((await page.locator('.monaco-editor .view-lines').first().textContent()) ?? '').replace(/\u00a0/g, ' ');
    await openFile('order_lines.sql');
    await cursorAt(linesText, 'o.amount,', 6);
    await page.keyboard.press('Backspace');
    await until('the typo in the editor', async () => (await editorText()).includes('o.amont,'), 10000);
    await page.keyboard.press('Control+S');
    await until('the typo saved to disk', () => readFileSync(lines, 'utf8') === misspelt, 15000);
    await page.locator('.monaco-editor .squiggly-error').first().waitFor({ state: 'visible', timeout: 60000 });
    await cursorAt(misspelt, 'o.amont,', 4);
    const fix = page.locator('.action-widget .monaco-list-row', { hasText: 'Change to o.amount' }).first();
    await until(
      'the fix applied in the editor',
      async () => {
        if ((await editorText()).includes('o.amount,')) return true;
        if (!(await fix.isVisible())) {
          await page.keyboard.press('Control+.');
          await fix.waitFor({ state: 'visible', timeout: 5000 });
        }
        await fix.click();
        await sleep(500);
        return (await editorText()).includes('o.amount,');
      },
      45000,
      500,
    );
    await page.keyboard.press('Control+S');
    await until('the fixed file saved as it was', () => readFileSync(lines, 'utf8') === linesText, 15000);
    await until('the error to go', async () => (await page.locator('.monaco-editor .squiggly-error').count()) === 0, 30000);
  });

  await step('columns: hover on a column gives where upstream it is computed', async () => {
    await cursorAt(linesText, 'o.amount', 3);
    const hover = page.locator('.monaco-hover', { hasText: 'clean_orders.sql:16' }).first();
    await until(
      'the column hover',
      async () => {
        await command('Show or Focus Hover', { expectRow: 'Show or Focus Hover' });
        await hover.waitFor({ state: 'visible', timeout: 3000 });
        return true;
      },
      45000,
      500,
    );
    const shown = (await hover.textContent()).replace(/\u00a0/g, ' ');
    for (const want of ['amount', 'Column of dataset clean_orders (as o)', 'cast(quantity AS INTEGER) * cast(unit_price AS DECIMAL(10, 2))']) {
      if (!shown.includes(want)) throw new Error(`hover lacks ${JSON.stringify(want)}: ${shown}`);
    }
    await page.keyboard.press('Escape');
  });

  await step('columns: F2 renames a column upstream and in its readers', async () => {
    await cursorAt(linesText, 'o.amount,', 3);
    await page.keyboard.press('F2');
    const input = page.locator('.rename-box input').first();
    await input.waitFor({ state: 'visible', timeout: 15000 });
    await until('the rename box to hold amount', async () => (await input.inputValue()) === 'amount', 10000);
    await input.fill('line_amount');
    await page.keyboard.press('Enter');
    await input.waitFor({ state: 'hidden', timeout: 15000 });
    await until(
      'order_lines.sql renamed in the editor',
      async () => ((await page.locator('.monaco-editor .view-lines').first().textContent()) ?? '').replace(/\u00a0/g, ' ').includes('o.line_amount'),
      15000,
    );
    await command('File: Save All', { expectRow: 'Save All' });
    const want = {
      'clean_orders.sql': 'AS line_amount',
      'order_lines.sql': 'o.quantity - o.line_amount AS discount',
      'customer_orders.sql': 'sum(l.line_amount) AS order_total',
      'revenue.sql': 'sum(line_amount)',
    };
    for (const [file, text] of Object.entries(want)) {
      await until(`${file} saved with ${text}`, () => readFileSync(join(tr, file), 'utf8').includes(text), 15000);
    }
    if (/\bAS amount\b/.test(readFileSync(join(tr, 'clean_orders.sql'), 'utf8'))) throw new Error('clean_orders.sql still defines amount');
    // The server reads the renamed pipeline as consistent: no error in it.
    await sleep(1000);
    await until('no error after the rename', async () => (await page.locator('.monaco-editor .squiggly-error').count()) === 0, 30000);
  });
}
