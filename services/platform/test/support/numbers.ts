const digits =
  'SELECT 0 AS d UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9';

/** A query of the numbers 1 to 100,000 as column `n`, to fill a table in one statement. */
export const NUMBERS = `SELECT a.d + 10 * b.d + 100 * c.d + 1000 * e.d + 10000 * f.d + 1 AS n
  FROM (${digits}) a, (${digits}) b, (${digits}) c, (${digits}) e, (${digits}) f`;
