// The HTML document a webview loads: a strict Content-Security-Policy that
// allows only the extension's own script (by nonce) and style, nothing
// remote, no inline event handlers and no eval.

import { escapeHtml } from './render';

export interface ShellOptions {
  /** The webview's cspSource (its own resource origin). */
  cspSource: string;
  /** A fresh random nonce for this document. */
  nonce: string;
  /** URI of the bundled webview script, as the webview sees it. */
  scriptUri: string;
  title: string;
  css: string;
  /** Initial body, shown before the script runs. */
  body?: string;
}

export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `img-src ${cspSource} data:`,
    `style-src ${cspSource} 'nonce-${nonce}'`,
    `font-src ${cspSource}`,
    `script-src 'nonce-${nonce}'`,
    "connect-src 'none'",
    "frame-src 'none'",
    "form-action 'none'",
    "base-uri 'none'",
  ].join('; ');
}

export function shellHtml(o: ShellOptions): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(contentSecurityPolicy(o.cspSource, o.nonce))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${escapeHtml(o.title)}</title>
<style nonce="${escapeHtml(o.nonce)}">${o.css}</style>
</head>
<body>
<div id="app">${o.body ?? '<p class="muted">Loading\u2026</p>'}</div>
<script nonce="${escapeHtml(o.nonce)}" src="${escapeHtml(o.scriptUri)}"></script>
</body>
</html>`;
}

/** A nonce of 32 characters from [A-Za-z0-9], from the given random source. */
export function makeNonce(random: (n: number) => Uint8Array): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from(random(32), (b) => alphabet[b % alphabet.length]).join('');
}
