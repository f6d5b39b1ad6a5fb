/** A slice of a list, already turned into SQL terms. */
export interface Page {
  limit: number;
  offset: number;
}

/** The LIMIT clause for an optional page, with its placeholder values. */
export function limitClause(page: Page | undefined): { sql: string; values: number[] } {
  return page
    ? { sql: ' LIMIT ? OFFSET ?', values: [page.limit, page.offset] }
    : { sql: '', values: [] };
}

/**
 * A list's number of rows; `counted` when counted for this request, false
 * when a total counted earlier was reused (store/cached-counts.ts).
 */
export interface Total {
  rows: number;
  counted: boolean;
}

/**
 * One list as a repository reads it: whole (the JSON text of its rows
 * separated by commas, at once or, for lists of megabytes, in pieces), one
 * page, or the number of its rows.
 */
export interface ListReads<Row> {
  all(): Promise<Buffer | AsyncIterable<Buffer>>;
  page(page: Page): Promise<Row[]>;
  count(): Promise<Total>;
}
