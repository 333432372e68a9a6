// Styles of the webviews and notebook outputs. Colours come only from VS
// Code's theme variables (--vscode-*), so light, dark and high-contrast
// themes all apply; nothing is loaded from outside.

export const BASE_CSS = `
:root { color-scheme: light dark; }
body {
  margin: 0; padding: 12px 16px;
  color: var(--vscode-foreground);
  background: var(--vscode-editor-background);
  font-family: var(--vscode-font-family);
  font-size: var(--vscode-font-size);
}
h1 { font-size: 1.3em; margin: 0; font-weight: 600; }
h2 { font-size: 1.05em; margin: 18px 0 6px; font-weight: 600; }
.muted { color: var(--vscode-descriptionForeground); font-weight: normal; }
.head { display: flex; align-items: baseline; gap: 12px; flex-wrap: wrap; margin-bottom: 8px; }
.head .stats { color: var(--vscode-descriptionForeground); }
.spacer { flex: 1; }
.loading { color: var(--vscode-progressBar-background); }
button {
  color: var(--vscode-button-foreground); background: var(--vscode-button-background);
  border: 1px solid var(--vscode-button-border, transparent); border-radius: 2px;
  padding: 3px 10px; font: inherit; cursor: pointer;
}
button:hover:not([disabled]) { background: var(--vscode-button-hoverBackground); }
button[disabled] { opacity: 0.45; cursor: default; }
button.page {
  color: var(--vscode-button-secondaryForeground); background: var(--vscode-button-secondaryBackground);
  padding: 1px 8px;
}
button.page:hover:not([disabled]) { background: var(--vscode-button-secondaryHoverBackground); }
.toolbar { display: flex; align-items: center; flex-wrap: wrap; gap: 4px 12px; margin: 6px 0; }
.pager .range, .sort-note, .clip-note { white-space: nowrap; }
.pager { display: flex; align-items: center; gap: 4px; }
.pager .range { padding: 0 8px; }
.table-wrap { overflow: auto; max-width: 100%; max-height: 70vh; }
/* The scrollbars stay visible: a table wider than the panel must look it. */
.table-wrap { scrollbar-width: auto; scrollbar-color: var(--vscode-scrollbarSlider-background) var(--vscode-editorWidget-background); }
.table-wrap::-webkit-scrollbar { width: 12px; height: 12px; }
.table-wrap::-webkit-scrollbar-thumb { background: var(--vscode-scrollbarSlider-background); border-radius: 6px; }
.table-wrap::-webkit-scrollbar-thumb:hover { background: var(--vscode-scrollbarSlider-hoverBackground); }
.table-wrap::-webkit-scrollbar-track { background: var(--vscode-editorWidget-background); }
.table-wrap::-webkit-scrollbar-corner { background: transparent; }
.table-wrap .thund-table td.gutter, .table-wrap .thund-table th.gutter {
  position: sticky; left: 0; z-index: 1; background: var(--vscode-editor-background);
}
.table-wrap .thund-table th.gutter { z-index: 2; background: var(--vscode-editorWidget-background); }
.clip-note { color: var(--vscode-editorInfo-foreground); font-size: 0.92em; }
table.thund-table {
  border-collapse: collapse;
  font-family: var(--vscode-editor-font-family); font-size: var(--vscode-editor-font-size);
}
.thund-table th, .thund-table td {
  border: 1px solid var(--vscode-panel-border, var(--vscode-editorGroup-border));
  padding: 2px 8px; text-align: left; white-space: nowrap; vertical-align: top;
}
.thund-table th { background: var(--vscode-editorWidget-background); position: sticky; top: 0; }
.thund-table th.sortable { cursor: pointer; user-select: none; }
.thund-table th.sortable:hover { background: var(--vscode-list-hoverBackground); }
.thund-table th .col-name { display: block; font-weight: 600; }
.thund-table th .col-type { display: block; font-weight: normal; font-size: 0.85em; color: var(--vscode-descriptionForeground); }
.thund-table th .sort-ind { font-size: 0.8em; color: var(--vscode-focusBorder); }
.thund-table .num { text-align: right; }
.thund-table td.gutter, .thund-table th.gutter {
  color: var(--vscode-editorLineNumber-foreground); text-align: right; min-width: 2.5em;
}
.thund-table tbody tr:hover { background: var(--vscode-list-hoverBackground); }
.null {
  color: var(--vscode-descriptionForeground); font-style: italic; font-size: 0.85em;
  border: 1px solid var(--vscode-descriptionForeground); border-radius: 3px; padding: 0 3px; opacity: 0.8;
}
.empty { color: var(--vscode-descriptionForeground); }
.nested { color: var(--vscode-debugTokenExpression-string, var(--vscode-foreground)); }
tr.row-added { background: var(--vscode-diffEditor-insertedLineBackground, rgba(155, 185, 85, 0.2)); }
tr.row-removed { background: var(--vscode-diffEditor-removedLineBackground, rgba(255, 0, 0, 0.2)); }
tr.row-removed td { text-decoration: line-through; }
tr.row-removed td.gutter { text-decoration: none; }
.mark { font-weight: bold; margin-right: 4px; }
tr.row-added .mark, .added-count { color: var(--vscode-gitDecoration-addedResourceForeground); }
tr.row-removed .mark, .removed-count { color: var(--vscode-gitDecoration-deletedResourceForeground); }
.diff-summary { margin: 4px 0; }
.badge { display: inline-block; padding: 0 6px; border-radius: 8px; font-size: 0.85em; border: 1px solid currentColor; }
.status-passed { color: var(--vscode-testing-iconPassed); }
.status-warned { color: var(--vscode-editorWarning-foreground); }
.status-dropped { color: var(--vscode-editorInfo-foreground); }
.status-failed { color: var(--vscode-editorError-foreground); }
.error-banner, .message.error {
  border-left: 3px solid var(--vscode-editorError-foreground);
  background: var(--vscode-inputValidation-errorBackground); padding: 6px 10px; margin: 8px 0;
}
.error-banner .error-detail, .thund-nb .error-detail {
  margin: 4px 0 0; white-space: pre; overflow-x: auto;
  font-family: var(--vscode-editor-font-family); font-size: var(--vscode-editor-font-size);
}
.error-text { color: var(--vscode-editorError-foreground); }
.increment { margin: 6px 0; }
.increment summary { cursor: pointer; }
.increment .files { color: var(--vscode-descriptionForeground); font-size: 0.9em; margin: 2px 0 4px; }
.message { max-width: 60em; }
.message p { line-height: 1.5; }
.untrusted {
  border-left: 3px solid var(--vscode-editorWarning-foreground);
  background: var(--vscode-inputValidation-warningBackground); padding: 8px 12px;
}
`;

export const LINEAGE_CSS = `
.legend { margin-bottom: 8px; }
.graph-wrap { overflow: auto; display: flex; border: 1px solid var(--vscode-panel-border, transparent); border-radius: 4px; }
.graph-wrap svg.lineage { margin: auto; flex: none; }
.zoom { display: inline-flex; align-items: center; gap: 4px; }
.zoom-level { min-width: 6.5em; text-align: center; color: var(--vscode-descriptionForeground); }
.legend-ok { color: var(--vscode-testing-iconPassed); }
.legend-failed { color: var(--vscode-editorError-foreground); }
.legend-skipped { color: var(--vscode-editorWarning-foreground); }
.node .status-bar { fill: var(--vscode-descriptionForeground); }
.node.phase-completed .status-bar { fill: var(--vscode-testing-iconPassed); }
.node.phase-failed .status-bar { fill: var(--vscode-editorError-foreground); }
.node.phase-skipped .status-bar { fill: var(--vscode-editorWarning-foreground); }
.node .run { font-size: 11.5px; fill: var(--vscode-foreground); }
.node .run.none { fill: var(--vscode-descriptionForeground); font-style: italic; }
.node.phase-completed .run { fill: var(--vscode-testing-iconPassed); }
.node.phase-failed .run { fill: var(--vscode-editorError-foreground); }
.node.phase-skipped .run { fill: var(--vscode-editorWarning-foreground); }
svg.lineage { font-family: var(--vscode-font-family); font-size: 12px; }
.edge { fill: none; stroke: var(--vscode-descriptionForeground); stroke-width: 1.4; }
.edge.streaming { stroke-dasharray: 5 3; }
.arrowhead { fill: var(--vscode-descriptionForeground); }
.node .box { fill: var(--vscode-editorWidget-background); stroke: var(--vscode-panel-border, var(--vscode-contrastBorder)); stroke-width: 1.2; }
.node.kind-source .box { fill: var(--vscode-editor-background); stroke-dasharray: 4 2; }
.node.kind-streaming_table .box { stroke: var(--vscode-charts-purple, var(--vscode-focusBorder)); }
.node.kind-materialized_view .box { stroke: var(--vscode-charts-blue, var(--vscode-focusBorder)); }
.node.kind-temporary_view .box, .node.kind-view .box { stroke: var(--vscode-charts-green, var(--vscode-focusBorder)); }
.node.has-errors .box { stroke: var(--vscode-editorError-foreground); stroke-width: 2; }
.node.clickable { cursor: pointer; }
.node.clickable:hover .box, .node.clickable:focus .box { stroke: var(--vscode-focusBorder); stroke-width: 2; }
.node:focus { outline: none; }
.node text { fill: var(--vscode-foreground); }
.node .name { font-weight: 600; font-size: 13px; }
.node .kind { fill: var(--vscode-descriptionForeground); }
.node .errors { fill: var(--vscode-editorError-foreground); font-size: 11px; }
.support rect { fill: none; stroke-width: 1; }
.support text { font-size: 10.5px; }
.support.ok rect { stroke: var(--vscode-testing-iconPassed); }
.support.ok text { fill: var(--vscode-testing-iconPassed); }
.support.bad rect { stroke: var(--vscode-editorError-foreground); }
.support.bad text { fill: var(--vscode-editorError-foreground); }
`;

/** Notebook outputs: the same look, scoped so it cannot leak. */
export const NOTEBOOK_CSS = `
.thund-nb { font-family: var(--vscode-font-family); color: var(--vscode-foreground); }
.thund-nb .muted { color: var(--vscode-descriptionForeground); }
.thund-nb .nb-head { margin: 4px 0; }
.thund-nb .nb-exps { margin: 4px 0; display: flex; gap: 6px; flex-wrap: wrap; }
.thund-nb .table-wrap { overflow: auto; max-height: 420px; }
.thund-nb table.thund-table { border-collapse: collapse; font-family: var(--vscode-editor-font-family); font-size: var(--vscode-editor-font-size); }
.thund-nb .thund-table th, .thund-nb .thund-table td { border: 1px solid var(--vscode-panel-border, var(--vscode-editorGroup-border)); padding: 1px 6px; text-align: left; white-space: nowrap; }
.thund-nb .thund-table th { background: var(--vscode-editorWidget-background); position: sticky; top: 0; }
.thund-nb .thund-table .col-name { display: block; font-weight: 600; }
.thund-nb .thund-table .col-type { display: block; font-size: 0.85em; color: var(--vscode-descriptionForeground); }
.thund-nb .thund-table .num { text-align: right; }
.thund-nb .thund-table .gutter { color: var(--vscode-editorLineNumber-foreground); text-align: right; }
.thund-nb .null { color: var(--vscode-descriptionForeground); font-style: italic; font-size: 0.85em; border: 1px solid var(--vscode-descriptionForeground); border-radius: 3px; padding: 0 3px; }
.thund-nb tr.row-added { background: var(--vscode-diffEditor-insertedLineBackground, rgba(155, 185, 85, 0.2)); }
.thund-nb .badge { display: inline-block; padding: 0 6px; border-radius: 8px; font-size: 0.85em; border: 1px solid currentColor; }
.thund-nb .status-passed { color: var(--vscode-testing-iconPassed); }
.thund-nb .status-warned { color: var(--vscode-editorWarning-foreground); }
.thund-nb .status-dropped { color: var(--vscode-editorInfo-foreground); }
.thund-nb .status-failed { color: var(--vscode-editorError-foreground); }
.thund-nb .error-banner { border-left: 3px solid var(--vscode-editorError-foreground); padding: 4px 8px; }
.thund-nb .error-detail { margin: 4px 0 0; white-space: pre; overflow-x: auto; font-family: var(--vscode-editor-font-family); font-size: var(--vscode-editor-font-size); }
.thund-nb .added-count { color: var(--vscode-gitDecoration-addedResourceForeground); }
.thund-nb .removed-count { color: var(--vscode-gitDecoration-deletedResourceForeground); }
`;
