// Which pipeline a file or the current editor belongs to.

import * as fs from 'fs';
import * as vscode from 'vscode';

import * as path from 'path';

import { findRoot, isRoot, isUnder, rootAnchor, specRoot } from './roots';

export function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The thund.spec setting as an absolute path ('' when unset): a spec under
 * any name, relative to the first workspace folder.
 */
export function specSetting(): string {
  const s = vscode.workspace.getConfiguration('thund').get<string>('spec', '').trim();
  if (!s) return '';
  const base = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? process.cwd();
  return path.resolve(base, s);
}

/** The pipeline root of a file, or undefined when no pipeline holds it. */
export function rootOf(uri: vscode.Uri): string | undefined {
  if (uri.scheme !== 'file') return undefined;
  const bySpec = specRoot(uri.fsPath, specSetting(), isFile);
  if (bySpec) return bySpec;
  const r = findRoot(uri.fsPath, isFile, isDir);
  return isRoot(r, isFile) ? r : undefined;
}

/** The URI to name a whole pipeline by, in thund/graph and thund/run. */
export function anchorOf(root: string): string {
  return vscode.Uri.file(rootAnchor(root, isFile, specSetting())).toString();
}

export function samePath(a: string, b: string): boolean {
  return toPath(a) === toPath(b);
}

/** A URI string or path, as a file system path. */
export function toPath(u: string): string {
  return u.startsWith('file:') ? vscode.Uri.parse(u).fsPath : u;
}

export function under(uri: vscode.Uri, root: string): boolean {
  return uri.scheme === 'file' && isUnder(uri.fsPath, root);
}

/** Pipeline roots in the workspace, found by their spec or thund.yaml. */
export async function workspaceRoots(): Promise<string[]> {
  const files = await vscode.workspace.findFiles(
    '**/{spark-pipeline.yml,spark-pipeline.yaml,thund.yaml}',
    '**/{node_modules,.git,target}/**',
    50,
  );
  const roots = new Set<string>();
  const spec = specSetting();
  if (spec && isFile(spec)) roots.add(path.dirname(spec));
  for (const f of files) {
    const r = rootOf(f);
    if (r) roots.add(r);
  }
  return [...roots].sort();
}

/** The pipeline of the active editor, else the workspace's first one. */
export async function currentRoot(): Promise<string | undefined> {
  const ed = vscode.window.activeTextEditor;
  if (ed) {
    const r = rootOf(ed.document.uri);
    if (r) return r;
  }
  const nb = vscode.window.activeNotebookEditor;
  if (nb && nb.notebook.notebookType === 'thund-notebook') {
    const r = nb.notebook.metadata?.root as string | undefined;
    if (r) return r;
  }
  return (await workspaceRoots())[0];
}
