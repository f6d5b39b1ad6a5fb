import { lookup } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isPrivateAddress } from './webhook-address.js';

/** A receiver has this long to answer an attempt. */
const ATTEMPT_TIMEOUT_MS = 10_000;

const agents = {
  'http:': new http.Agent({ keepAlive: true }),
  'https:': new https.Agent({ keepAlive: true }),
};

/** What an attempt got: the receiver's HTTP status, or why there was none. */
type PostResult = { status: number } | { error: string };

type Address = { address: string; family: number };

/**
 * DNS as usual, but an answer that names a private address fails, so a host
 * that resolved to a public address when its webhook was made cannot be
 * pointed inside later (DNS rebinding).
 */
const publicOnly: LookupFunction = (hostname, options, callback) => {
  lookup(hostname, { ...options }, (err, address, family) => {
    if (err) {
      callback(err, '', 0);
      return;
    }
    const list: Address[] = Array.isArray(address) ? address : [{ address, family: family ?? 4 }];
    const inside = list.find((each) => isPrivateAddress(each.address));
    if (inside) {
      callback(
        Object.assign(new Error(`${hostname} resolves to ${inside.address}, a private address`), {
          code: 'EPRIVATE',
        }),
        '',
        0,
      );
      return;
    }
    (callback as (err: null, address: string | Address[], family?: number) => void)(
      null,
      address,
      family,
    );
  });
};

/** POSTs `body` to `url` with `headers`; a 2xx answer is the receiver's; nothing waits past ATTEMPT_TIMEOUT_MS. */
export function postEvent(
  url: URL,
  headers: Record<string, string>,
  body: Buffer,
  allowPrivate: boolean,
): Promise<PostResult> {
  const literal = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!allowPrivate && isIP(literal) !== 0 && isPrivateAddress(literal)) {
    return Promise.resolve({ error: `${literal} is a private address` });
  }
  const send = url.protocol === 'https:' ? https.request : http.request;
  return new Promise((resolve) => {
    const req = send(
      url,
      {
        method: 'POST',
        agent: agents[url.protocol as 'http:' | 'https:'],
        headers: { ...headers, 'content-length': String(body.length) },
        lookup: allowPrivate ? undefined : publicOnly,
      },
      (res) => {
        clearTimeout(timer);
        res.resume();
        resolve({ status: res.statusCode ?? 0 });
      },
    );
    const timer = setTimeout(
      () => req.destroy(new Error(`no answer within ${ATTEMPT_TIMEOUT_MS / 1000} s`)),
      ATTEMPT_TIMEOUT_MS,
    );
    req.on('error', (err) => {
      clearTimeout(timer);
      resolve({ error: err.message });
    });
    req.end(body);
  });
}
