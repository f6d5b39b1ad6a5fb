import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';

/**
 * Generators of hostile requests for the property tests: texts with the
 * characters that break naive code, numbers at the edges of every numeric
 * type, JSON bodies written as raw text (duplicate keys, escapes, nesting),
 * and the headers, query strings and path segments around them.
 */

export const INT_MAX = 2_147_483_647;

/** NUL and controls, bidi marks, BOM, combining marks, astral characters, lone surrogates. */
const SPECIAL_CHARS = [
  '\u0000',
  '\u0001',
  '\u001f',
  '\u007f',
  '\u0085',
  '\u00a0',
  'é',
  'e\u0301',
  '\u200b',
  '\u200e',
  '\u200f',
  '\u202e',
  '\u2066',
  '\u061c',
  'ש',
  'م',
  '\u3000',
  '\ufeff',
  '\ufffd',
  '\uffff',
  '\ud800',
  '\udbff',
  '\udc00',
  '\udfff',
  '😀',
  '👩‍👩‍👧',
  '𝕏',
  '\u{10ffff}',
  '保',
  '"',
  '\\',
  "'",
  '`',
  '%',
  '&',
  '=',
  '?',
  '#',
  '/',
  '+',
  ';',
  '<',
  ' ',
  '\t',
  '\n',
  '\r',
];

const oddChar = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...SPECIAL_CHARS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }) },
);

const oddText = (maxLength = 12) => fc.string({ unit: oddChar, maxLength });

/** What a lone surrogate becomes in UTF-8 (and so in the database): U+FFFD. */
export const wellFormed = (text: string) =>
  text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');

/** The JSON texts of a string: as JSON.stringify writes it, or every code unit escaped. */
const jsonString = (text: string) =>
  fc.constantFrom(
    JSON.stringify(text),
    `"${Array.from({ length: text.length }, (_, i) => `\\u${text.charCodeAt(i).toString(16).padStart(4, '0')}`).join('')}"`,
  );

/** Number texts at the edges: -0, floats, past INT, past 2^53, past a double (1e400 is Infinity). */
const ODD_NUMBERS = [
  '0',
  '-0',
  '-0.0',
  '1',
  '-1',
  '1.5',
  '0.1',
  '1e-7',
  '5e-324',
  '1E2',
  '1.0',
  '2147483647',
  '2147483648',
  '-2147483649',
  '4294967296',
  '9007199254740991',
  '9007199254740993',
  '-9007199254740993',
  '1e308',
  '-1e308',
  '1e400',
  '123456789012345678901234567890',
];

const NESTED = ['[]', '{}', '[[[[[[]]]]]]', '{"a":{"b":{"c":[1,{"d":null}]}}}', '[{"x":"y"}]'];

/** Any JSON value, as text. */
export const wildJson: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...ODD_NUMBERS, ...NESTED, 'null', 'true', 'false', '""'),
  oddText().chain(jsonString),
  fc.jsonValue({ maxDepth: 3, stringUnit: oddChar }).map((value) => JSON.stringify(value)),
);

/** Objects, arrays and booleans: no rule takes them. */
const structure = fc.oneof(
  fc.constantFrom(...NESTED, 'true', 'false'),
  fc
    .jsonValue({ maxDepth: 3 })
    .filter((value) => typeof value === 'object' && value !== null)
    .map((value) => JSON.stringify(value)),
);

const notAString = fc.oneof(
  fc.constantFrom(...ODD_NUMBERS, ...NESTED, 'true', 'false'),
  fc
    .jsonValue({ maxDepth: 3 })
    .filter((value) => typeof value !== 'string' && value !== null)
    .map((value) => JSON.stringify(value)),
);

/**
 * A field's JSON text and what the route's rules make of it: `valid` and
 * `invalid` by construction, `missing` for a well-formed id of no row, `either`
 * when the generator does not know. `json` undefined leaves the field out.
 */
export interface FieldText {
  json?: string;
  verdict: 'valid' | 'invalid' | 'missing' | 'either';
}

type Rule = Record<FieldText['verdict'], fc.Arbitrary<string | undefined> | undefined>;

const codePoints = (text: string) => [...text].length;

/** Text that trims to 1..max characters, around its ends the whitespace trim() removes. */
function fittingText(max: number) {
  const edge = fc.constantFrom('', ' ', '\t', '\n ', '\u3000', '\ufeff', '\u00a0');
  const core = oddText(12)
    .map((text) => [...text.trim()].slice(0, max).join(''))
    .filter((text) => text.trim() !== '' && codePoints(text.trim()) <= max);
  const full = fc.constantFrom('😀', '保', 'a', '\ud800').map((unit) => unit.repeat(max));
  return fc
    .tuple(edge, fc.oneof({ weight: 5, arbitrary: core }, { weight: 1, arbitrary: full }), edge)
    .map(([before, text, after]) => `${before}${text}${after}`)
    .chain(jsonString);
}

function tooLongText(max: number) {
  return fc
    .tuple(fc.integer({ min: max + 1, max: max + 20 }), fc.constantFrom('a', '😀', '保', '\udfff'))
    .map(([length, unit]) => JSON.stringify(unit.repeat(length)));
}

const BLANK = ['""', '" "', '"\\t\\n"', '"\\u3000\\ufeff"', '"\\u00a0 "', 'null'];

export function requiredText(max: number): Rule {
  return {
    valid: fittingText(max),
    invalid: fc.oneof(fc.constantFrom(...BLANK), tooLongText(max), notAString),
    missing: undefined,
    either: wildJson,
  };
}

export function optionalText(max: number): Rule {
  return {
    valid: fc.oneof(fc.constantFrom(undefined, 'null', '""', '"  "'), fittingText(max)),
    invalid: fc.oneof(tooLongText(max), notAString),
    missing: undefined,
    either: wildJson,
  };
}

const BAD_IDS = [
  '0',
  '-1',
  '-0',
  '"-0"',
  '1.5',
  '1e308',
  '1e400',
  '2147483648',
  '"2147483648"',
  '9007199254740993',
  '"abc"',
  '""',
  '" "',
  'null',
  'true',
  '[1]',
  '{"id":1}',
  '"1e3"',
  '"0x10"',
  '"١٢"',
  '"+1"',
  '"1.0"',
  '-2147483647',
];

/** An id field that references rows: those of `existing` are valid, others are missing. */
export function idRef(existing: number[]): Rule {
  const forms = (id: number) =>
    fc.constantFrom(
      String(id),
      JSON.stringify(String(id)),
      JSON.stringify(` ${id}\t`),
      JSON.stringify(`00${id}`),
      `${id}.0`,
      `${id}e0`,
      `${id * 10}e-1`,
    );
  return {
    valid: fc.constantFrom(...existing).chain(forms),
    invalid: fc.oneof(fc.constantFrom(...BAD_IDS), structure),
    missing: fc
      .integer({ min: 1_000_000, max: INT_MAX })
      .chain((id) => fc.constantFrom(String(id), JSON.stringify(String(id)))),
    either: wildJson,
  };
}

export const price: Rule = {
  valid: fc
    .tuple(fc.integer({ min: 0, max: 9_999_999_999 }), fc.constantFrom('number', 'fixed', 'text'))
    .map(([cents, form]) => {
      const amount = cents / 100;
      if (form === 'number') return String(amount);
      return JSON.stringify(form === 'fixed' ? ` ${amount.toFixed(2)} ` : String(amount));
    }),
  invalid: fc.oneof(
    fc.constantFrom(
      '-1',
      '-0.01',
      '"-1"',
      '1.234',
      '"1.234"',
      '1e-7',
      '5e-324',
      '1e308',
      '1e400',
      '100000000',
      '"100000000"',
      '"99999999.999"',
      '"1e3"',
      '"abc"',
      '""',
      '" "',
      'null',
      '"Infinity"',
      '"NaN"',
      '".5"',
      '"5."',
      '"1,00"',
    ),
    structure,
  ),
  missing: undefined,
  either: wildJson,
};

export const stock: Rule = {
  valid: fc.oneof(
    fc.constantFrom(undefined, 'null', '""', '0', String(INT_MAX)),
    fc
      .integer({ min: 0, max: INT_MAX })
      .chain((n) =>
        fc.constantFrom(String(n), JSON.stringify(String(n)), JSON.stringify(` ${n} `)),
      ),
  ),
  invalid: fc.oneof(
    fc.constantFrom(
      '-1',
      '"-1"',
      '1.5',
      '2147483648',
      '"2147483648"',
      '1e400',
      '"abc"',
      '" "',
      '"1e3"',
      '-2147483648',
    ),
    structure,
  ),
  missing: undefined,
  either: wildJson,
};

function fieldText(rule: Rule, mode: 'valid' | 'mixed'): fc.Arbitrary<FieldText> {
  const pick = (verdict: FieldText['verdict'], weight: number) => {
    const arbitrary = rule[verdict];
    return arbitrary ? [{ weight, arbitrary: arbitrary.map((json) => ({ json, verdict })) }] : [];
  };
  if (mode === 'valid') return fc.oneof(...pick('valid', 1));
  return fc.oneof(
    ...pick('valid', 5),
    ...pick('invalid', 3),
    ...pick('missing', 1),
    ...pick('either', 1),
  );
}

const EXTRA_KEYS = [
  'status',
  'id',
  'create_time',
  '__proto__',
  'constructor',
  'hasOwnProperty',
  'toString',
  'valueOf',
  'toJSON',
  'then',
];

/** A body as raw JSON object text, and the verdict of each field in it. */
export interface FieldsBody {
  kind: 'fields';
  text: string;
  fields: Record<string, FieldText>;
  /** Sent with a field that takes it over the body limit (left out of `text`, to keep reports short). */
  padded: boolean;
}

/** The text with a 110 kB field added. */
export const padded = (text: string) =>
  `${text.slice(0, -1)}${text === '{}' ? '' : ','}"padding":"${'x'.repeat(110 * 1024)}"}`;

/**
 * A JSON object text with the route's fields: each key may come more than once
 * (the last one counts, as in JSON.parse), may be written with escapes, and
 * sits among unknown keys; whitespace between tokens varies.
 */
export function fieldsBody(rules: Record<string, Rule>): fc.Arbitrary<FieldsBody> {
  const names = Object.keys(rules);
  const extraKey = fc
    .oneof(fc.constantFrom(...EXTRA_KEYS), oddText(6))
    .filter((key) => !names.includes(key));
  const entry = (key: string, json: string) =>
    jsonString(key).map((keyText) => [keyText, json] as const);
  const field = (name: string, mode: 'valid' | 'mixed') =>
    fc
      .tuple(fieldText(rules[name]!, mode), fc.array(wildJson, { maxLength: 2 }))
      .chain(([final, earlier]) => {
        // A field left out is absent: no earlier copy of its key either.
        const texts = final.json === undefined ? [] : [...earlier, final.json];
        return fc
          .tuple(...texts.map((json) => entry(name, json)))
          .map((entries) => ({ name, final, entries }));
      });
  return fc
    .record({
      mode: fc.constantFrom('valid', 'mixed'),
      extras: fc.array(fc.tuple(extraKey, wildJson), { maxLength: 3 }),
      extrasFirst: fc.boolean(),
      space: fc.constantFrom('', ' ', '\n', '\t', '\r\n  '),
      padded: fc.oneof({ weight: 30, arbitrary: fc.constant(false) }, fc.constant(true)),
    })
    .chain(({ mode, extras, extrasFirst, space, padded }) =>
      fc
        .tuple(
          fc.tuple(...names.map((name) => field(name, mode as 'valid' | 'mixed'))),
          fc.tuple(...extras.map(([key, json]) => entry(key, json))),
        )
        .map(([fieldList, extraEntries]) => {
          const own = fieldList.flatMap(({ entries }) => entries);
          const all = extrasFirst ? [...extraEntries, ...own] : [...own, ...extraEntries];
          const pair = ([key, json]: readonly [string, string]) =>
            `${space}${key}${space}:${space}${json}${space}`;
          return {
            kind: 'fields' as const,
            text: `{${all.map(pair).join(',')}}`,
            fields: Object.fromEntries(fieldList.map(({ name, final }) => [name, final])),
            padded,
          };
        }),
    );
}

/** Every other kind of body: a JSON value that is no object, any text, broken UTF-8, nothing. */
export type OtherBody =
  | { kind: 'not-object'; text: string }
  | { kind: 'text'; text: string }
  | { kind: 'bytes'; bytes: Uint8Array }
  | { kind: 'none' };

export const otherBody: fc.Arbitrary<OtherBody> = fc.oneof(
  fc
    .jsonValue({ maxDepth: 3, stringUnit: oddChar })
    .filter((value) => value === null || typeof value !== 'object' || Array.isArray(value))
    .map((value) => ({ kind: 'not-object' as const, text: JSON.stringify(value) })),
  fc
    .oneof(
      oddText(40),
      fc.constantFrom('', '   ', '{', '{"name":', '{"a":1,}', "{'a':1}", 'null', '\ufeff{}'),
      fc.json({ maxDepth: 2 }).map((text) => text.slice(0, -1)),
    )
    .map((text) => ({ kind: 'text' as const, text })),
  fc.tuple(fc.string(), fc.uint8Array({ minLength: 1, maxLength: 4 })).map(([text, junk]) => ({
    kind: 'bytes' as const,
    bytes: Buffer.concat([
      Buffer.from(`{"name":"${text}`),
      Buffer.from([0xff, ...junk, 0x22, 0x7d]),
    ]),
  })),
  fc.constant({ kind: 'none' as const }),
);

/** A header value a well-formed HTTP client can send: tab, visible ASCII, obs-text. */
export const headerValue = fc.string({
  unit: fc
    .oneof(
      fc.integer({ min: 0x20, max: 0x7e }),
      fc.integer({ min: 0x80, max: 0xff }),
      fc.constant(9),
    )
    .map((code) => String.fromCharCode(code)),
  maxLength: 40,
});

const JSON_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'Application/JSON',
  'application/json;charset=UTF-8',
];

const OTHER_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/vnd.api+json',
  'application/jsonx',
  '*/*',
  'json',
];

/** How the body travels: its type, its Content-Encoding, its framing. */
export interface Transport {
  contentType?: string;
  encoding: 'absent' | 'identity' | 'gzip' | 'GZIP' | 'deflate' | 'br' | 'fake-gzip' | 'x-zip';
  chunked: boolean;
}

export const transport: fc.Arbitrary<Transport> = fc.record({
  contentType: fc.oneof(
    { weight: 12, arbitrary: fc.constantFrom(...JSON_TYPES) },
    { weight: 2, arbitrary: fc.constantFrom(...OTHER_TYPES) },
    { weight: 1, arbitrary: headerValue },
    { weight: 1, arbitrary: fc.constant(undefined) },
  ),
  encoding: fc.oneof(
    { weight: 12, arbitrary: fc.constant('absent' as const) },
    { weight: 2, arbitrary: fc.constantFrom('identity', 'gzip', 'GZIP', 'deflate', 'br') },
    { weight: 1, arbitrary: fc.constantFrom('fake-gzip', 'x-zip') },
  ),
  chunked: fc.oneof({ weight: 6, arbitrary: fc.constant(false) }, fc.constant(true)),
});

/** The body parser reads it: a JSON type and an encoding it decodes. */
export const isClean = (t: Transport) =>
  t.contentType !== undefined &&
  JSON_TYPES.includes(t.contentType) &&
  !['fake-gzip', 'x-zip'].includes(t.encoding);

/** The Content-Type and Content-Encoding headers, and the bytes as encoded. */
export function encodeBody(t: Transport, body: Buffer | undefined) {
  const headers: Record<string, string> = {};
  if (t.contentType !== undefined) headers['content-type'] = t.contentType;
  const header = { 'fake-gzip': 'gzip', absent: undefined } as Record<string, string | undefined>;
  const name = t.encoding in header ? header[t.encoding] : t.encoding;
  if (name !== undefined) headers['content-encoding'] = name;
  const compress: Record<string, (bytes: Buffer) => Buffer> = {
    gzip: gzipSync,
    GZIP: gzipSync,
    deflate: deflateSync,
    br: brotliCompressSync,
  };
  const encode = compress[t.encoding];
  return { headers, body: body && encode ? encode(body) : body };
}

/** Headers around the request: request ids, credentials, and names of no meaning here. */
export const extraHeaders: fc.Arbitrary<Record<string, string>> = fc
  .tuple(
    fc.record(
      {
        'x-request-id': fc.oneof(fc.stringMatching(/^[A-Za-z0-9._-]{1,140}$/), headerValue),
        authorization: fc.oneof(
          headerValue.map((value) => `Bearer ${value}`),
          headerValue,
        ),
        token: headerValue,
        cookie: headerValue,
        origin: fc.oneof(fc.constant('https://admin.example'), headerValue),
        accept: fc.oneof(fc.constantFrom('application/json', 'text/html', '*/*'), headerValue),
        'accept-encoding': fc.constantFrom('gzip', 'br', 'identity;q=0', '*'),
        'x-forwarded-for': headerValue,
      },
      { requiredKeys: [] },
    ),
    fc.dictionary(
      fc.stringMatching(/^[a-z0-9-]{1,12}$/).map((name) => `x-fc-${name}`),
      headerValue,
      { maxKeys: 3 },
    ),
  )
  .map(([known, other]) => ({ ...other, ...known }));

/** Percent-encodes every byte but the unreserved ones; a lone surrogate goes as U+FFFD. */
const percentEncode = (text: string) =>
  [...Buffer.from(wellFormed(text), 'utf8')]
    .map((byte) =>
      /[A-Za-z0-9._~-]/.test(String.fromCharCode(byte))
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');

/** Query pieces no encoder writes: lone %, bad escapes, empty keys and values. */
const RAW_QUERY = ['%', '%zz', '%E4%BF', '%ff', '', '=', '=v', 'k', 'a=b=c', '+', '%00', ';'];

/**
 * A query string, from `?`: the route's parameters, each with values at its
 * own edges, among parameters of no meaning, hostile values and raw pieces.
 */
export function queryString(params: Record<string, string[]>): fc.Arbitrary<string> {
  const own = Object.entries(params).map(([name, values]) =>
    fc.tuple(
      fc.constant(name),
      fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom(...values) },
        { weight: 1, arbitrary: fc.constantFrom(...ODD_NUMBERS) },
        { weight: 1, arbitrary: oddText() },
      ),
    ),
  );
  const other = fc.tuple(
    fc.oneof(
      fc.constantFrom('t', '__proto__', 'constructor', 'hasOwnProperty', 'status[]'),
      oddText(6),
    ),
    fc.oneof(fc.constantFrom(...ODD_NUMBERS), oddText()),
  );
  const encoded = (text: string, plus: boolean) =>
    plus ? percentEncode(text).replaceAll('%20', '+') : percentEncode(text);
  const pair = fc.oneof(
    ...[...own, other].map((arbitrary) =>
      fc
        .tuple(arbitrary, fc.boolean())
        .map(([[name, value], plus]) => `${encoded(name, plus)}=${encoded(value, plus)}`),
    ),
    fc.constantFrom(...RAW_QUERY),
  );
  return fc
    .array(pair, { maxLength: 4 })
    .map((pairs) => (pairs.length === 0 ? '' : `?${pairs.join('&')}`));
}

/**
 * A path parameter: `wire` as sent, `param` as the route receives it (Express
 * decodes it; a segment that does not decode arrives as written).
 */
interface PathParam {
  wire: string;
  param: string;
}

export function pathParam(existing: number[]): fc.Arbitrary<PathParam> {
  const encoded = (text: string) => ({ wire: percentEncode(text), param: wellFormed(text) });
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...existing).map((id) => encoded(String(id))) },
    {
      weight: 2,
      arbitrary: fc.integer({ min: 1_000_000, max: INT_MAX }).map((id) => encoded(String(id))),
    },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom(...ODD_NUMBERS, ' 1', '1 ', '+1', '٣', '0x1', '1;', '..', '.', '0001')
        .map(encoded),
    },
    {
      weight: 2,
      arbitrary: oddText()
        .filter((text) => text !== '')
        .map(encoded),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        { wire: '%31', param: '1' },
        { wire: '0%31', param: '01' },
        { wire: '%ff', param: '%ff' },
        { wire: '%', param: '%' },
        { wire: '1%', param: '1%' },
        { wire: '%E4%BF', param: '%E4%BF' },
        { wire: '%00', param: '\u0000' },
        { wire: '1%2F2', param: '1/2' },
      ),
    },
  );
}
