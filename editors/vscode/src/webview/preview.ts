// Preview panel script: keeps the last answer, renders it with the pure
// renderer, sorts on header clicks and asks the extension for pages.

import type { Diff, PreviewInbound, PreviewOutbound, PreviewResult } from '../protocol';
import { clipNote, diffToShow, nextSort, renderMessage, renderPreview, SortState, UNTRUSTED_TEXT } from '../render';
import { vscodeApi } from './api';

interface State {
  result?: PreviewResult;
  pageSize: number;
  sort: SortState | null;
  diff: Diff | null;
}

const api = vscodeApi<PreviewOutbound, State>();
const app = document.getElementById('app')!;
let state: State = api.getState() ?? { pageSize: 100, sort: null, diff: null };
let loading = false;

function draw(): void {
  if (!state.result) return;
  app.innerHTML = renderPreview({ result: state.result, pageSize: state.pageSize, sort: state.sort, diff: state.diff, loading });
  const wrap = app.querySelector('.table-wrap');
  wrap?.addEventListener('scroll', noteClipping, { passive: true });
  noteClipping();
}

/** Says which columns are in view when the table is wider than the panel. */
function noteClipping(): void {
  const wrap = app.querySelector('.table-wrap') as HTMLElement | null;
  const note = app.querySelector('.clip-note') as HTMLElement | null;
  if (!wrap || !note) return;
  const box = wrap.getBoundingClientRect();
  const gutter = wrap.querySelector('thead th.gutter')?.getBoundingClientRect().width ?? 0;
  const cols = Array.from(wrap.querySelectorAll('thead th[data-col]')).map((th) => {
    const r = th.getBoundingClientRect();
    return { left: r.left, right: r.right };
  });
  // The row numbers stay in view (sticky), so what they cover is hidden.
  const text = clipNote(cols, box.left + gutter, box.left + wrap.clientWidth);
  note.textContent = text;
  note.hidden = text === '';
  wrap.classList.toggle('clipped', text !== '');
}

window.addEventListener('resize', noteClipping);

window.addEventListener('message', (ev: MessageEvent<PreviewInbound>) => {
  const m = ev.data;
  switch (m.type) {
    case 'loading':
      loading = true;
      if (state.result) draw();
      else app.innerHTML = renderMessage(`Previewing ${m.dataset}\u2026`, 'Running the dataset and what it reads.');
      break;
    case 'data':
      loading = false;
      state = { ...state, result: m.result, pageSize: m.pageSize, diff: diffToShow(state.diff, m.result, m.reason) };
      if (m.reason === 'refresh') state.sort = state.sort && state.sort.column < m.result.columns.length ? state.sort : null;
      api.setState(state);
      draw();
      break;
    case 'error':
      loading = false;
      app.innerHTML = `<div class="message error">${renderMessage(`Could not preview ${m.dataset}`, m.message, { label: 'Retry', action: 'refresh' })}</div>`;
      break;
    case 'untrusted':
      loading = false;
      app.innerHTML = `<div class="untrusted">${renderMessage(`${m.dataset}: Restricted Mode`, UNTRUSTED_TEXT, { label: 'Manage Workspace Trust', action: 'trust' })}</div>`;
      break;
  }
});

app.addEventListener('click', (ev) => {
  const t = ev.target as HTMLElement;
  const th = t.closest('th[data-col]') as HTMLElement | null;
  if (th) {
    state.sort = nextSort(state.sort, Number(th.dataset.col));
    api.setState(state);
    draw();
    return;
  }
  const btn = t.closest('button') as HTMLButtonElement | null;
  if (!btn || btn.disabled) return;
  if (btn.dataset.offset !== undefined) {
    api.postMessage({ type: 'page', offset: Number(btn.dataset.offset) });
  } else if (btn.dataset.action === 'refresh') {
    api.postMessage({ type: 'refresh' });
  } else if (btn.dataset.action === 'trust') {
    api.postMessage({ type: 'trust' });
  }
});

draw();
api.postMessage({ type: 'ready' });
