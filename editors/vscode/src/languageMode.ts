// Which documents become pipeline SQL (see language.ts), free of any
// vscode import so the unit tests can use it.

/** The language id of pipeline SQL ("Spark Pipeline SQL"). */
export const PIPELINE_SQL = 'thund-sql';

/**
 * Whether a document should become pipeline SQL: a `sql` file on disk
 * inside a pipeline, unless thund.sqlLanguage is "sql" or the user set
 * this document's language back to sql in this window.
 */
export function shouldSwitch(doc: { languageId: string; scheme: string; inPipeline: boolean; userChose: boolean }, setting: string): boolean {
  return setting !== 'sql' && doc.languageId === 'sql' && doc.scheme === 'file' && doc.inPipeline && !doc.userChose;
}
