// Finding a file's pipeline root the way thund-lsp does (project.FindRoot):
// the nearest folder with spark-pipeline.yml (or .yaml), else the nearest
// with thund.yaml, else the file's own folder.

import * as path from 'path';

export const SPEC_FILES = ['spark-pipeline.yml', 'spark-pipeline.yaml'];
export const CONFIG_FILE = 'thund.yaml';

export function findRoot(file: string, isFile: (p: string) => boolean, isDir: (p: string) => boolean = () => false): string {
  const start = isDir(file) ? file : path.dirname(file);
  for (const names of [SPEC_FILES, [CONFIG_FILE]]) {
    for (let dir = start; ; ) {
      if (names.some((n) => isFile(path.join(dir, n)))) return dir;
      const parent = path.dirname(dir);
      if (parent === dir) break;
      dir = parent;
    }
  }
  return start;
}

/** True when the folder holds a pipeline (spec or thund.yaml). */
export function isRoot(dir: string, isFile: (p: string) => boolean): boolean {
  return [...SPEC_FILES, CONFIG_FILE].some((n) => isFile(path.join(dir, n)));
}

/** The file to name when asking about the whole pipeline (thund/graph, thund/run). */
export function rootAnchor(dir: string, isFile: (p: string) => boolean, spec = ''): string {
  if (spec && path.dirname(spec) === dir && isFile(spec)) return spec;
  for (const n of [...SPEC_FILES, CONFIG_FILE]) {
    const p = path.join(dir, n);
    if (isFile(p)) return p;
  }
  return path.join(dir, SPEC_FILES[0]);
}

/**
 * The root the spec setting (thund.spec, an absolute path) gives a file:
 * the spec's folder for a file under it, as thund-lsp takes it; undefined
 * when the setting is empty, names no file, or the file is elsewhere.
 */
export function specRoot(file: string, spec: string, isFile: (p: string) => boolean): string | undefined {
  if (!spec || !isFile(spec)) return undefined;
  const dir = path.dirname(spec);
  return isUnder(file, dir) ? dir : undefined;
}

export function isUnder(file: string, dir: string): boolean {
  const rel = path.relative(dir, file);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}
