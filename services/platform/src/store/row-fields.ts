/**
 * The fields of an answer row, declared once per resource as a map from the
 * row's key to its SQL. The page SELECT and the JSON text MySQL writes for a
 * whole list are both generated from that map, in its order, so they cannot
 * drift apart; `satisfies Record<keyof Row, RowField>` ties the map to the
 * row's zod schema.
 */
export interface RowField {
  /** The value's SQL expression. */
  sql: string;
  /**
   * How the JSON text writes the value: bare (a number), JSON_QUOTE'd (text,
   * or text or null), or between quotes as it is (text that needs no escaping).
   */
  json: 'number' | 'text' | 'text or null' | 'plain text';
}

export const numberField = (sql: string): RowField => ({ sql, json: 'number' });
export const textField = (sql: string): RowField => ({ sql, json: 'text' });
export const nullableTextField = (sql: string): RowField => ({ sql, json: 'text or null' });
/** A DECIMAL as MySQL writes it ("150.00"): digits and a point. */
export const decimalField = (sql: string): RowField => ({ sql, json: 'plain text' });

/**
 * A TIMESTAMP as the API writes it, ISO 8601 in UTC ("2026-11-22T19:15:04.000Z"),
 * formatted by MySQL in the session's UTC zone. Rows then hold only strings and
 * numbers, which JSON.stringify writes several times faster than Dates.
 */
export const timeField = (column: string): RowField => ({
  sql: `DATE_FORMAT(${column}, '%Y-%m-%dT%H:%i:%s.000Z')`,
  json: 'plain text',
});

type RowFields = Record<string, RowField>;

/** `expression AS key, …`: the fields as the columns of a SELECT. */
export function selectColumns(fields: RowFields): string {
  return Object.entries(fields)
    .map(([key, field]) => `${field.sql} AS ${key}`)
    .join(', ');
}

const quoted = (text: string) => `'${text}'`;

/** The CONCAT arguments that write one field's value. */
function valueParts({ sql, json }: RowField): { text?: string; sql?: string }[] {
  switch (json) {
    case 'number':
      return [{ sql }];
    case 'text':
      return [{ sql: `JSON_QUOTE(${sql})` }];
    case 'text or null':
      return [{ sql: `IFNULL(JSON_QUOTE(${sql}), 'null')` }];
    case 'plain text':
      return [{ text: '"' }, { sql }, { text: '"' }];
  }
}

/**
 * One binary column holding each row as JSON text written by MySQL,
 * `{"id":1,…}`, sent on as read: never decoded and encoded again. `open` leaves
 * the closing brace off, for fields the caller appends (see jsonTail).
 */
export function jsonColumn(fields: RowFields, { open = false } = {}): string {
  const parts = Object.entries(fields).flatMap(([key, field], i) => [
    { text: `${i === 0 ? '{' : ','}"${key}":` },
    ...valueParts(field),
  ]);
  if (!open) parts.push({ text: '}' });
  // Neighbouring texts joined: CONCAT('{"id":', o.id, ',"name":', …)
  const merged: string[] = [];
  let text = '';
  for (const part of parts) {
    if (part.text !== undefined) text += part.text;
    else {
      if (text) merged.push(quoted(text));
      text = '';
      merged.push(part.sql as string);
    }
  }
  if (text) merged.push(quoted(text));
  return `CAST(CONCAT(${merged.join(', ')}) AS BINARY)`;
}

/** The rest of a row `jsonColumn(…, { open: true })` began: these fields of `row` (null when absent) and the brace. */
export function jsonTail(fields: RowFields, row: Record<string, unknown> | undefined): Buffer {
  const text = Object.keys(fields)
    .map((key) => `,"${key}":${JSON.stringify(row?.[key] ?? null)}`)
    .join('');
  return Buffer.from(`${text}}`);
}
