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
