/**
 * A TIMESTAMP column as the API writes it, ISO 8601 in UTC ("2026-11-22T19:15:04.000Z"),
 * formatted by MySQL in the session's UTC zone. Rows then hold only strings and
 * numbers, which JSON.stringify writes several times faster than Dates.
 */
export function isoTime(column: string): string {
  return `DATE_FORMAT(${column}, '%Y-%m-%dT%H:%i:%s.000Z')`;
}
