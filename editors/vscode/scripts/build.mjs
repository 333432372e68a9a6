// Bundles the extension (Node, CommonJS), the webview scripts (browser,
// IIFE) and, with --tests, the unit tests, with esbuild.
import * as esbuild from 'esbuild';
import { readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(dirname(fileURLToPath(import.meta.url)));
const production = process.argv.includes('--production');
const tests = process.argv.includes('--tests');

rmSync(join(here, 'dist'), { recursive: true, force: true });

const common = { bundle: true, sourcemap: production ? false : 'linked', minify: production, logLevel: 'warning', absWorkingDir: here };

await esbuild.build({
  ...common,
  entryPoints: ['src/extension.ts'],
  outfile: 'dist/extension.js',
  platform: 'node',
  format: 'cjs',
  target: 'node18',
  external: ['vscode'],
});

await esbuild.build({
  ...common,
  entryPoints: ['src/webview/preview.ts', 'src/webview/lineage.ts'],
  outdir: 'dist/webview',
  platform: 'browser',
  format: 'iife',
  target: 'es2020',
});

if (tests) {
  const entries = readdirSync(join(here, 'test')).filter((f) => f.endsWith('.test.ts')).map((f) => `test/${f}`);
  await esbuild.build({
    ...common,
    entryPoints: entries,
    outdir: 'dist/test',
    platform: 'node',
    format: 'cjs',
    target: 'node18',
    external: ['vscode'],
  });
}
