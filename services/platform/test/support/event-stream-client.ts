import { type IncomingHttpHeaders, request } from 'node:http';

interface StreamMessage {
  id?: string;
  event?: string;
  data: string;
}

/** A Server-Sent Events reader for tests: `next(n)` resolves with the next n messages (comments skipped). */
interface StreamReader {
  status: number;
  headers: IncomingHttpHeaders;
  next(count: number, timeoutMs?: number): Promise<StreamMessage[]>;
  /** Comment lines seen so far. */
  comments: string[];
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

export function openStream(
  url: string,
  headers: Record<string, string> = {},
): Promise<StreamReader> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { Accept: 'text/event-stream', ...headers } }, (res) => {
      const messages: StreamMessage[] = [];
      const comments: string[] = [];
      let waiting: (() => void) | undefined;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        let end = text.indexOf('\n\n');
        while (end >= 0) {
          const block = text.slice(0, end);
          text = text.slice(end + 2);
          const message: StreamMessage = { data: '' };
          let isMessage = false;
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line);
            else {
              const at = line.indexOf(': ');
              const [field, value] = [line.slice(0, at), line.slice(at + 2)];
              if (field === 'id') message.id = value;
              if (field === 'event') message.event = value;
              if (field === 'data') message.data = value;
              isMessage = true;
            }
          }
          if (isMessage) messages.push(message);
          end = text.indexOf('\n\n');
        }
        waiting?.();
      });
      const ended = new Promise<void>((done) => res.once('end', done));
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        comments,
        ended,
        next(count, timeoutMs = 5000) {
          return new Promise((done, fail) => {
            const timer = setTimeout(
              () => fail(new Error(`fewer than ${count} events within ${timeoutMs} ms`)),
              timeoutMs,
            );
            const check = () => {
              if (messages.length < count) return;
              clearTimeout(timer);
              waiting = undefined;
              done(messages.splice(0, count));
            };
            waiting = check;
            check();
          });
        },
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
    req.end();
  });
}
