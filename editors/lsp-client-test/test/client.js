// A thin harness around vscode-languageserver-protocol, the client library
// VS Code itself uses: it spawns bin/thund-lsp over stdio, records the
// server's notifications and offers bounded waits for them.

import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import {
  createProtocolConnection,
  DidOpenTextDocumentNotification,
  InitializedNotification,
  InitializeRequest,
  PublishDiagnosticsNotification,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-languageserver-protocol/node';

const here = dirname(fileURLToPath(import.meta.url));
export const repo = resolve(here, '..', '..', '..');
export const serverBin = process.env.THUND_LSP || join(repo, 'bin', 'thund-lsp');

export const uriOf = (path) => pathToFileURL(path).href;

// Temporary pipelines, removed when the test process ends.
const made = [];
process.on('exit', () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});
export const pathOf = (uri) => fileURLToPath(uri);

/** Copies a testdata pipeline to a fresh temporary folder. */
export function copyPipeline(name) {
  const dir = mkdtempSync(join(tmpdir(), `thund-lsp-${name}-`));
  made.push(dir);
  cpSync(join(repo, 'testdata', name), dir, { recursive: true });
  rmSync(join(dir, 'storage'), { recursive: true, force: true });
  return dir;
}

/** Makes a temporary pipeline from a map of relative path -> text. */
export function makePipeline(files) {
  const dir = mkdtempSync(join(tmpdir(), 'thund-lsp-made-'));
  made.push(dir);
  for (const [rel, text] of Object.entries(files)) {
    writeFileSync(join(dir, rel), text);
  }
  return dir;
}

/** Resolves after ms milliseconds. */
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Rejects with a message naming what was awaited when ms pass first. */
export function within(ms, what, promise) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The 0-based position of the n-th occurrence of needle (ASCII text). */
export function positionOf(text, needle, n = 0, delta = 0) {
  let off = -1;
  for (let i = 0; i <= n; i++) {
    off = text.indexOf(needle, off + 1);
    if (off < 0) throw new Error(`${JSON.stringify(needle)} occurs fewer than ${n + 1} times`);
  }
  off += delta;
  const before = text.slice(0, off);
  const line = before.split('\n').length - 1;
  return { line, character: off - (before.lastIndexOf('\n') + 1) };
}

/**
 * A running thund-lsp with a protocol connection to it.
 */
export class Server {
  constructor({ rootDir, initializationOptions } = {}) {
    this.rootDir = rootDir;
    this.initializationOptions = initializationOptions;
    this.proc = spawn(serverBin, [], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.stderr = '';
    this.proc.stderr.on('data', (b) => {
      this.stderr = (this.stderr + b.toString()).slice(-20000);
      if (process.env.THUND_LSP_DEBUG) process.stderr.write(b);
    });
    this.exited = new Promise((resolve) => {
      this.proc.on('exit', (code, signal) => resolve({ code, signal }));
    });
    this.conn = createProtocolConnection(new StreamMessageReader(this.proc.stdout), new StreamMessageWriter(this.proc.stdin));
    // uri -> every publishDiagnostics for it, oldest first.
    this.published = new Map();
    this.waiters = [];
    this.conn.onNotification(PublishDiagnosticsNotification.type, (p) => {
      if (!this.published.has(p.uri)) this.published.set(p.uri, []);
      this.published.get(p.uri).push(p);
      this.waiters = this.waiters.filter((w) => !w(p));
    });
    this.conn.onError(() => {});
    this.conn.listen();
  }

  /** initialize + initialized; returns the InitializeResult. */
  async initialize() {
    const root = this.rootDir ? uriOf(this.rootDir) : null;
    const result = await within(15000, 'initialize', this.conn.sendRequest(InitializeRequest.type, {
      processId: process.pid,
      clientInfo: { name: 'thund-lsp-client-test' },
      rootUri: root,
      workspaceFolders: root ? [{ uri: root, name: 'pipeline' }] : null,
      capabilities: {
        window: { workDoneProgress: true },
        textDocument: { publishDiagnostics: { versionSupport: true } },
        workspace: { workspaceEdit: { documentChanges: true, resourceOperations: ['rename'] } },
      },
      initializationOptions: this.initializationOptions,
    }));
    await this.conn.sendNotification(InitializedNotification.type, {});
    return result;
  }

  /** Opens a file (its disk text, or text) and returns { uri, text }. */
  async open(path, text) {
    text ??= readFileSync(path, 'utf8');
    const uri = uriOf(path);
    await this.conn.sendNotification(DidOpenTextDocumentNotification.type, {
      textDocument: { uri, languageId: 'sql', version: 1, text },
    });
    return { uri, text };
  }

  /**
   * Waits for a publishDiagnostics for uri that satisfies pred, counting
   * those already received after index `since` (see count()).
   */
  diagnostics(uri, pred, { since = 0, ms = 15000 } = {}) {
    const seen = (this.published.get(uri) || []).slice(since).find(pred);
    if (seen) return Promise.resolve(seen);
    return within(ms, `diagnostics for ${uri}`, new Promise((resolve) => {
      this.waiters.push((p) => {
        if (p.uri === uri && pred(p)) {
          resolve(p);
          return true;
        }
        return false;
      });
    }));
  }

  /** How many publishDiagnostics have arrived for uri. */
  count(uri) {
    return (this.published.get(uri) || []).length;
  }

  /** Kills the process if it is still running. */
  async kill() {
    this.conn.dispose();
    if (this.proc.exitCode === null && this.proc.signalCode === null) {
      this.proc.kill('SIGKILL');
    }
    await this.exited;
  }
}
