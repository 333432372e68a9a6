// Lineage panel script: draws the graph the extension sends, and asks it
// to open a dataset's file when its node is clicked. With the column
// graph (thund/lineage), it lists each dataset's columns below the graph:
// a dataset expands into its columns, and clicking a column highlights
// its upstream and downstream, in the lists and on the graph's nodes.

import type { LineageInbound, LineageOutbound } from '../protocol';
import { renderLineagePage, renderMessage } from '../render';
import { renderColumns, tableHighlights, type ColumnID, type ColumnsInbound, type ColumnView, type LineageResult } from '../columnLineage';
import { vscodeApi } from './api';

const api = vscodeApi<LineageOutbound, unknown>();
const app = document.getElementById('app')!;

let columns: LineageResult | undefined;

// Zoom: 'fit' (the default) scales the graph to the panel, never above
// 100%, and follows the panel's size; a number is a fixed scale.
let zoom: number | 'fit' = 'fit';
const ZOOM_MIN = 0.2;
const ZOOM_MAX = 3;

/** The graph's room: the panel's width, and its height below the header. */
function room(wrap: HTMLElement): { w: number; h: number } {
  const top = wrap.getBoundingClientRect().top + window.scrollY;
  return { w: Math.max(100, wrap.clientWidth - 2), h: Math.max(240, window.innerHeight - top - 16) };
}

/** Sizes the graph for the zoom, centred in its room. */
function applyZoom(): void {
  const svg = app.querySelector('svg.lineage') as SVGSVGElement | null;
  const wrap = app.querySelector('.graph-wrap') as HTMLElement | null;
  if (!svg || !wrap) return;
  const w = Number(svg.dataset.width);
  const h = Number(svg.dataset.height);
  const r = room(wrap);
  wrap.style.maxHeight = `${Math.round(r.h)}px`;
  const z = zoom === 'fit' ? Math.min(1, r.w / w, r.h / h) : zoom;
  svg.setAttribute('width', String(Math.round(w * z)));
  svg.setAttribute('height', String(Math.round(h * z)));
  const label = app.querySelector('.zoom-level');
  if (label) label.textContent = `${Math.round(z * 100)}%${zoom === 'fit' ? ' (fit)' : ''}`;
}

function currentScale(): number {
  const svg = app.querySelector('svg.lineage') as SVGSVGElement | null;
  if (!svg) return 1;
  return Number(svg.getAttribute('width')) / Number(svg.dataset.width);
}

function zoomBy(f: number): void {
  zoom = Math.min(ZOOM_MAX, Math.max(ZOOM_MIN, Math.round(currentScale() * f * 100) / 100));
  applyZoom();
}

window.addEventListener('resize', () => {
  if (zoom === 'fit') applyZoom();
});

app.addEventListener(
  'wheel',
  (ev) => {
    if (!ev.ctrlKey || !(ev.target as Element).closest('.graph-wrap')) return;
    ev.preventDefault();
    zoomBy(ev.deltaY < 0 ? 1.1 : 1 / 1.1);
  },
  { passive: false },
);
const view: ColumnView = { expanded: new Set<string>() };

/** Draws the columns section and marks the graph's nodes for the focus. */
function drawColumns(): void {
  let section = document.getElementById('columns');
  if (!columns) {
    section?.remove();
    return;
  }
  if (view.focus && !columns.tables.some((t) => t.columns.some((c) => c.name === view.focus!.column && t.name === view.focus!.table))) {
    view.focus = undefined; // the column is gone after an edit
  }
  if (!section) {
    section = document.createElement('div');
    section.id = 'columns';
    app.appendChild(section);
  }
  section.innerHTML = renderColumns(columns, view);
  const marks = tableHighlights(columns, view.focus);
  for (const node of Array.from(app.querySelectorAll('g.node[data-id]'))) {
    node.classList.remove('hl-focus', 'hl-upstream', 'hl-downstream');
    const m = marks[(node as SVGElement).dataset.id ?? ''];
    if (m) node.classList.add(`hl-${m}`);
  }
}

window.addEventListener('message', (ev: MessageEvent<LineageInbound | ColumnsInbound>) => {
  const m = ev.data;
  if (m.type === 'graph') {
    app.innerHTML = renderLineagePage(m.graph, m.errors, m.runs);
    applyZoom();
    drawColumns();
  } else if (m.type === 'columns') {
    columns = m.result;
    drawColumns();
  } else if (m.type === 'error') {
    app.innerHTML = `<div class="message error">${renderMessage('No lineage', m.message, { label: 'Retry', action: 'refresh' })}</div>`;
  }
});

function open(el: Element | null): boolean {
  const node = el?.closest('[data-uri]') as HTMLElement | SVGElement | null;
  if (!node) return false;
  api.postMessage({ type: 'open', uri: node.dataset.uri!, line: Number(node.dataset.line ?? 0) });
  return true;
}

/** Focuses (or unfocuses) the column of a clicked row. */
function focus(el: Element | null): boolean {
  const row = el?.closest('li[data-column]') as HTMLElement | null;
  if (!row) return false;
  const id: ColumnID = { table: row.dataset.table!, column: row.dataset.column! };
  const same = view.focus && view.focus.table === id.table && view.focus.column === id.column;
  view.focus = same ? undefined : id;
  drawColumns();
  return true;
}

app.addEventListener('click', (ev) => {
  const t = ev.target as Element;
  const z = t.closest('button[data-zoom]') as HTMLElement | null;
  if (z) {
    if (z.dataset.zoom === 'fit') {
      zoom = 'fit';
      applyZoom();
    } else {
      zoomBy(z.dataset.zoom === 'in' ? 1.25 : 1 / 1.25);
    }
    return;
  }
  if (t.closest('button[data-action="refresh"]')) {
    api.postMessage({ type: 'refresh' });
    return;
  }
  if (t.closest('button[data-action="clear-focus"]')) {
    view.focus = undefined;
    drawColumns();
    return;
  }
  if (t.closest('.col-open')) {
    open(t);
    return;
  }
  if (focus(t)) return;
  open(t);
});

// Remember which datasets are expanded across redraws.
app.addEventListener(
  'toggle',
  (ev) => {
    const d = ev.target as HTMLDetailsElement;
    const id = d.dataset?.tableId;
    if (!id) return;
    if (d.open) view.expanded.add(id);
    else view.expanded.delete(id);
  },
  true,
);

app.addEventListener('keydown', (ev) => {
  if (ev.key === 'Enter' || ev.key === ' ') {
    if (!focus(ev.target as Element)) open(ev.target as Element);
  }
});

api.postMessage({ type: 'ready' });
