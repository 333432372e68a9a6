// Workspace trust: in Restricted Mode Thund shows diagnostics only. No
// request that runs SQL (thund/preview, thund/run) is sent, and every
// place that would run SQL says why it does not.

import * as vscode from 'vscode';

export function isTrusted(): boolean {
  return vscode.workspace.isTrusted;
}

export const RESTRICTED_MESSAGE =
  'Thund is in Restricted Mode: this workspace is not trusted, so it shows diagnostics only and runs no SQL.';

/** True when trusted; otherwise says so, offering to manage trust. */
export function requireTrust(what: string): boolean {
  if (isTrusted()) return true;
  void vscode.window.showWarningMessage(`${what} is off. ${RESTRICTED_MESSAGE}`, 'Manage Workspace Trust').then((a) => {
    if (a) void vscode.commands.executeCommand('workbench.trust.manage');
  });
  return false;
}
