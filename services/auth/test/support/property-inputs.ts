import fc from 'fast-check';

/*
 * Generated request parts. Whatever depends on the state of the run (a token
 * that is live right now, an account's current password) is a recipe here and
 * becomes a value only when the request is sent (`property-model.ts`).
 */

/** Where a token comes from. */
export type TokenRecipe =
  | { kind: 'live'; pick: number }
  | { kind: 'revoked'; pick: number }
  | { kind: 'derived'; pick: number; how: Derivation }
  | { kind: 'text'; value: string };

/** Ways to turn a live token into one that was never issued. */
export type Derivation =
  | 'upper'
  | 'flip-last'
  | 'drop-last'
  | 'doubled'
  | 'sha256'
  | 'md5'
  | 'session-key'
  | 'owner';

/** A token between whitespace, in the `token` header or after a scheme in `Authorization`. */
export interface Placed {
  prefix: string;
  before: string;
  token: TokenRecipe;
  after: string;
}

export interface Carrier {
  authorization?: Placed;
  /** One `token` header line for each. */
  token: Placed[];
  /** Other headers, some of which look like token carriers and must be ignored. */
  extra: { name: string; value: Placed }[];
  query: QueryPart[];
  /** Appended as it is: malformed escapes and separators. */
  queryTail: string;
}

export type QueryPart = { key: string; value: string } | { key: string; token: TokenRecipe };

/** How to change an account's username or password before sending it. */
export type Change =
  | { kind: 'none' }
  | { kind: 'flip-case'; mask: number }
  | { kind: 'kelvin' }
  | { kind: 'append'; text: string }
  | { kind: 'drop-last' }
  | { kind: 'trailing-space' }
  | { kind: 'accent' };

export type ValueRecipe =
  | { json: string }
  | { ref: 'username' | 'password'; of: 'chosen' | 'owner'; change: Change };

/** A content type and what Express's JSON parser makes of it. */
export interface ContentType {
  header?: string;
  parsed: 'json' | 'bad-charset' | 'ignored';
}

/** `broken`: says gzip, is not; `unknown`: an encoding the parser does not know. */
export type Encoding = 'none' | 'identity' | 'gzip' | 'broken' | 'unknown';

export type BodyRecipe =
  | { kind: 'none' }
  | { kind: 'raw'; type: ContentType; encoding: Encoding; bytes: Buffer }
  | {
      kind: 'object';
      type: ContentType;
      encoding: Encoding;
      entries: [string, ValueRecipe][];
      /** Whitespace between the tokens of the JSON text. */
      gap: string;
      /** Every non-ASCII character as a \u escape, instead of raw UTF-8. */
      escaped: boolean;
      /** The account that `chosen` references use. */
      chosen: number;
    };

export const whitespace = fc.string({ unit: fc.constantFrom(' ', '\t', '\u00a0'), maxLength: 3 });

/** Characters Node's HTTP client accepts in a header value: HTAB, 0x20-0x7E, 0x80-0xFF. */
const headerChar = fc
  .oneof(
    { weight: 6, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
    { weight: 1, arbitrary: fc.constant(0x09) },
    { weight: 2, arbitrary: fc.integer({ min: 0x80, max: 0xff }) },
  )
  .map((code) => String.fromCharCode(code));

/** Any text as its UTF-8 bytes, one latin1 character a byte: raw UTF-8 on the wire. */
const rawUtf8 = fc.string({ unit: 'binary', maxLength: 30 }).map((text) => {
  const bytes = Buffer.from(text, 'utf8').filter((b) => b === 0x09 || (b >= 0x20 && b !== 0x7f));
  return Buffer.from(bytes).toString('latin1');
});

/** Up to a few KB, so that all headers stay under Node's 16 KB limit together. */
const longHeaderText = fc
  .tuple(
    fc.string({ unit: headerChar, minLength: 1, maxLength: 8 }),
    fc.integer({ min: 256, max: 2500 }),
  )
  .map(([seed, length]) => seed.repeat(Math.ceil(length / seed.length)).slice(0, length));

const shortHeaderText = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: headerChar, maxLength: 40 }) },
  { weight: 3, arbitrary: rawUtf8 },
);

export const headerText = fc.oneof(
  { weight: 7, arbitrary: shortHeaderText },
  { weight: 1, arbitrary: longHeaderText },
);

const textToken = (text: fc.Arbitrary<string>) =>
  fc.oneof(
    { weight: 3, arbitrary: text },
    { weight: 2, arbitrary: fc.stringMatching(/^[0-9a-f]{64}$/) },
    { weight: 2, arbitrary: fc.stringMatching(/^[0-9a-f]{32}$/) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'bull:judge:id',
        '*',
        'session:*',
        'session:user:*',
        'auth:login-failures:*',
        'null',
        'undefined',
        '[object Object]',
        '0',
      ),
    },
  );

const derivation = fc.constantFrom<Derivation>(
  'upper',
  'flip-last',
  'drop-last',
  'doubled',
  'sha256',
  'md5',
  'session-key',
  'owner',
);

/** Never issued: made up, derived from an issued token, or one that was revoked. */
const foreign = (text: fc.Arbitrary<string>): fc.Arbitrary<TokenRecipe> =>
  fc.oneof(
    { weight: 3, arbitrary: textToken(text).map((value) => ({ kind: 'text' as const, value })) },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('derived' as const),
        pick: fc.nat(),
        how: derivation,
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('revoked' as const), pick: fc.nat() }) },
  );

export const foreignToken = foreign(headerText);

export const liveToken: fc.Arbitrary<TokenRecipe> = fc.record({
  kind: fc.constant('live' as const),
  pick: fc.nat(),
});

export const anyToken = fc.oneof(liveToken, foreignToken);

/**
 * For the query and the other headers: no long values there, which keeps the
 * URL and all headers together under Node's 16 KB limit (a 431 is Node's
 * answer, not the app's).
 */
const anyShortToken = fc.oneof(liveToken, foreign(shortHeaderText));

/** Scheme words and near-misses of `Bearer `. */
const schemePrefix = fc.oneof(
  { weight: 6, arbitrary: fc.constant('Bearer ') },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      'bearer ',
      'BEARER ',
      'Bearer',
      'Bearer\t',
      'Bearer  ',
      ' Bearer ',
      '\tBearer ',
      '\u00a0Bearer ',
      'Bearer:',
      'Bearer=',
      'Bearer\u00a0',
      'Basic ',
      'Token ',
      'Digest ',
      '',
    ),
  },
  { weight: 1, arbitrary: headerText },
);

export const placed = (
  token: fc.Arbitrary<TokenRecipe>,
  prefix: fc.Arbitrary<string> = fc.constant(''),
) => fc.record({ prefix, before: whitespace, token, after: whitespace });

const extraHeaderName = fc.oneof(
  fc.constantFrom(
    'cookie',
    'x-token',
    'x-access-token',
    'access-token',
    'x-auth-token',
    'proxy-authorization',
    'x-forwarded-for',
    'x-request-id',
    'accept',
    'user-agent',
  ),
  fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/).map((name) => `x-${name}`),
);

const extraPrefix = fc.constantFrom('', 'token=', 'Bearer ', 'access_token=');

const queryKey = fc.oneof(
  fc.constantFrom(
    'token',
    'access_token',
    'authorization',
    'username',
    'password',
    '__proto__',
    'constructor[prototype][admin]',
    'token[]',
    '',
    'pageSize',
    'cursor',
  ),
  fc.string({ unit: 'binary', maxLength: 12 }),
);

const queryPart: fc.Arbitrary<QueryPart> = fc.oneof(
  fc.record({ key: queryKey, value: fc.string({ unit: 'binary', maxLength: 30 }) }),
  fc.record({
    key: fc.constantFrom('token', 'access_token', 'authorization', 'Authorization', 'token[]'),
    token: anyShortToken,
  }),
);

const queryTail = fc.constantFrom(
  '',
  '&',
  '=',
  '%',
  '%zz',
  '%00',
  '%ff%fe',
  '&&=&',
  '+',
  '?',
  '#x',
);

/** Headers and query of a request that may or may not carry a token. */
export function carrier(token: fc.Arbitrary<TokenRecipe> = anyToken): fc.Arbitrary<Carrier> {
  return fc.record({
    authorization: fc.option(placed(token, schemePrefix), { nil: undefined }),
    token: fc.array(placed(token), { maxLength: 2 }),
    extra: fc.array(
      fc.record({ name: extraHeaderName, value: placed(anyShortToken, extraPrefix) }),
      {
        maxLength: 2,
      },
    ),
    query: fc.array(queryPart, { maxLength: 3 }),
    queryTail,
  });
}

const CONTENT_TYPES: ContentType[] = [
  { header: 'application/json; charset=utf-8', parsed: 'json' },
  { header: 'Application/JSON', parsed: 'json' },
  { header: 'application/json;charset=UTF-8', parsed: 'json' },
  { header: 'application/json; charset=latin1', parsed: 'bad-charset' },
  { header: 'application/json; charset=bogus', parsed: 'bad-charset' },
  { parsed: 'ignored' },
  { header: 'text/plain', parsed: 'ignored' },
  { header: 'application/x-www-form-urlencoded', parsed: 'ignored' },
  { header: 'application/vnd.api+json', parsed: 'ignored' },
  { header: 'multipart/form-data; boundary=x', parsed: 'ignored' },
  { header: 'application/json, text/plain', parsed: 'ignored' },
  { header: 'application/jsonx', parsed: 'ignored' },
];

const contentType: fc.Arbitrary<ContentType> = fc.oneof(
  { weight: 8, arbitrary: fc.constant({ header: 'application/json', parsed: 'json' } as const) },
  { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
);

const encoding: fc.Arbitrary<Encoding> = fc.oneof(
  { weight: 12, arbitrary: fc.constant('none' as const) },
  { weight: 1, arbitrary: fc.constantFrom<Encoding>('identity', 'gzip', 'broken', 'unknown') },
);

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));

/** Text around one lone surrogate: valid JSON (as an escape), but not valid Unicode. */
const withLoneSurrogate = fc
  .tuple(fc.string({ maxLength: 8 }), loneSurrogate, fc.string({ maxLength: 8 }))
  .map((parts) => parts.join(''));

/** Strings that have broken naive validators: astral, RTL, NUL, lone surrogates, boundaries. */
const oddText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.stringMatching(/^[A-Za-z0-9_.-]{1,40}$/),
  fc
    .tuple(
      fc.constantFrom('a', '😀', '\u202e', 'é', 'e\u0301', '\u0000', 'ש', '\ufeff', '\ud800'),
      fc.constantFrom(0, 1, 2, 3, 7, 8, 32, 33, 64, 128, 129),
    )
    .map(([char, count]) => char.repeat(count)),
  withLoneSurrogate,
);

/** Characters a person would count as one each, mixed from many scripts. */
const passwordChar = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('😀', '𝔘', '\u202e', '\u200f', 'ש', 'ع', '\u0000', '密', 'é', ' '),
  },
);

/** A password that today's rules accept: 8 to 128 characters, odd ones included. */
export const newPassword = fc
  .array(passwordChar, { minLength: 8, maxLength: 40 })
  .map((chars) => chars.join(''));

export const newUsername = fc.stringMatching(/^[A-Za-z0-9_.-]{3,32}$/);

/** Raw JSON text of a value that is rarely what a route wants. */
export const oddJson: fc.Arbitrary<ValueRecipe> = fc
  .oneof(
    { weight: 6, arbitrary: oddText.map((text) => JSON.stringify(text)) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '0',
        '-0',
        '1e400',
        '-1e400',
        '123456789012345678901234567890',
        '1.5e-400',
        '9007199254740993',
        'true',
        'false',
        'null',
        '[]',
        '{}',
        '""',
        '["alice"]',
        '{"$gt":""}',
        '{"$ne":null}',
        '[["a"]]',
        '{"username":"a","username":{"x":1}}',
      ),
    },
    { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }).map(String) },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)) },
  )
  .map((json) => ({ json }));

/** A string value, as JSON. */
export const text = (value: fc.Arbitrary<string>) =>
  value.map((s): ValueRecipe => ({ json: JSON.stringify(s) }));

const change: fc.Arbitrary<Change> = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ kind: 'none' } as const) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('flip-case' as const), mask: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom<Change>(
      { kind: 'kelvin' },
      { kind: 'drop-last' },
      { kind: 'trailing-space' },
      { kind: 'accent' },
    ),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('append' as const),
      text: fc.constantFrom('x', '\u0000', '😀', ' ', '\ud800', '\udfff'),
    }),
  },
);

/** An account's username or password, changed or not. */
export const ref = (field: 'username' | 'password', of: 'chosen' | 'owner') =>
  change.map((c): ValueRecipe => ({ ref: field, of, change: c }));

/** An account's username or password as it is. */
export const exact = (field: 'username' | 'password', of: 'chosen' | 'owner') =>
  fc.constant<ValueRecipe>({ ref: field, of, change: { kind: 'none' } });

const extraKey = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'roles', 'id', 'token', 'admin', ''),
  fc.string({ unit: 'binary', maxLength: 10 }),
);

/**
 * Each field once, or twice with different values (the parser keeps the
 * last), sometimes one left out; extra keys; in any order.
 */
function objectBody(fields: Record<string, fc.Arbitrary<ValueRecipe>>) {
  const perField = Object.entries(fields).map(([key, value]) =>
    fc
      .array(value, { minLength: 1, maxLength: 2 })
      .map((values) => values.map((v): [string, ValueRecipe] => [key, v])),
  );
  return fc
    .record({
      lists: fc.tuple(...perField),
      extras: fc.array(fc.tuple(extraKey, oddJson), { maxLength: 2 }),
      duplicates: fc.nat(4),
      drop: fc.nat(7),
      rotate: fc.nat(),
      type: contentType,
      encoding,
      gap: fc.constantFrom('', ' ', '\n', '\t', ' \r\n '),
      escaped: fc.boolean(),
      chosen: fc.nat(),
    })
    .map(({ lists, extras, duplicates, drop, rotate, ...rest }): BodyRecipe => {
      const kept = lists
        .filter((_, i) => i !== drop)
        .map((list) => (duplicates === 0 ? list : list.slice(-1)));
      const entries = [...kept.flat(), ...extras];
      const shift = entries.length === 0 ? 0 : rotate % entries.length;
      return {
        kind: 'object',
        entries: [...entries.slice(shift), ...entries.slice(0, shift)],
        ...rest,
      };
    });
}

/** Each field once, as plain JSON: only the route's own rules decide. */
export function wellFormedBody(fields: Record<string, fc.Arbitrary<ValueRecipe>>) {
  const keys = Object.keys(fields);
  return fc
    .record({ values: fc.tuple(...Object.values(fields)), escaped: fc.boolean(), chosen: fc.nat() })
    .map(
      ({ values, escaped, chosen }): BodyRecipe => ({
        kind: 'object',
        entries: values.map((value, i): [string, ValueRecipe] => [keys[i] as string, value]),
        type: { header: 'application/json', parsed: 'json' },
        encoding: 'none',
        gap: '',
        escaped,
        chosen,
      }),
    );
}

const rawBytes = fc.oneof(
  fc
    .constantFrom(
      '',
      ' ',
      'null',
      'true',
      '1',
      '"text"',
      '[]',
      '[1,2]',
      '[{"username":"a"}]',
      '{',
      '{"username":"a",',
      "{'username':'a'}",
      '{"a":1}}',
      'username=a&password=b',
      '\ufeff{}',
      '{"username":"a"}garbage',
      '{"username":"\\ud800","password":"\\udc00"}',
      '{"username":"a","username":{"x":1}}',
      '{"__proto__":{"admin":true}}',
      'NaN',
      '{"a":NaN}',
      '{"a":1,}',
      '/* */{}',
      '\u0000',
      '{"username":"a"\u0000}',
    )
    .map((s) => Buffer.from(s, 'utf8')),
  fc.string({ unit: 'binary', maxLength: 60 }).map((s) => Buffer.from(s, 'utf8')),
  fc.jsonValue({ maxDepth: 3 }).map((v) => Buffer.from(JSON.stringify(v), 'utf8')),
  fc.uint8Array({ maxLength: 60 }).map((bytes) => Buffer.from(bytes)),
);

const rawBody: fc.Arbitrary<BodyRecipe> = fc.record({
  kind: fc.constant('raw' as const),
  type: contentType,
  encoding,
  bytes: rawBytes,
});

/** A body for a route that takes one: mostly an object with its fields, sometimes anything. */
export function body(
  fields: Record<string, fc.Arbitrary<ValueRecipe>>,
  weights = { object: 6, raw: 2, none: 1 },
): fc.Arbitrary<BodyRecipe> {
  return fc.oneof(
    { weight: weights.object, arbitrary: objectBody(fields) },
    { weight: weights.raw, arbitrary: rawBody },
    { weight: weights.none, arbitrary: fc.constant({ kind: 'none' } as const) },
  );
}

/** A body for a route that takes none: mostly none. */
export const strayBody: fc.Arbitrary<BodyRecipe> = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ kind: 'none' } as const) },
  { weight: 1, arbitrary: rawBody },
  { weight: 1, arbitrary: objectBody({ username: oddJson, password: oddJson }) },
);
