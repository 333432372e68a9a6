// The webview side of postMessage, typed.

export interface VsCodeApi<Out, State> {
  postMessage(msg: Out): void;
  getState(): State | undefined;
  setState(state: State): void;
}

declare function acquireVsCodeApi<Out, State>(): VsCodeApi<Out, State>;

export function vscodeApi<Out, State>(): VsCodeApi<Out, State> {
  return acquireVsCodeApi<Out, State>();
}
