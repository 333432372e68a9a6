// Lineage panel script: draws the graph the extension sends, and asks it
// to open a dataset's file when its node is clicked.

import type { LineageInbound, LineageOutbound } from '../protocol';
import { renderLineagePage, renderMessage } from '../render';
import { vscodeApi } from './api';

const api = vscodeApi<LineageOutbound, unknown>();
const app = document.getElementById('app')!;

window.addEventListener('message', (ev: MessageEvent<LineageInbound>) => {
  const m = ev.data;
  if (m.type === 'graph') {
    app.innerHTML = renderLineagePage(m.graph, m.errors, m.phases);
  } else if (m.type === 'error') {
    app.innerHTML = `<div class="message error">${renderMessage('No lineage', m.message, { label: 'Retry', action: 'refresh' })}</div>`;
  }
});

function open(el: Element | null): void {
  const node = el?.closest('[data-uri]') as SVGElement | null;
  if (!node) return;
  api.postMessage({ type: 'open', uri: node.dataset.uri!, line: Number(node.dataset.line ?? 0) });
}

app.addEventListener('click', (ev) => {
  const t = ev.target as Element;
  if (t.closest('button[data-action="refresh"]')) {
    api.postMessage({ type: 'refresh' });
    return;
  }
  open(t);
});

app.addEventListener('keydown', (ev) => {
  if (ev.key === 'Enter' || ev.key === ' ') open(ev.target as Element);
});

api.postMessage({ type: 'ready' });
