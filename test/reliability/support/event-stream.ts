import { request } from 'node:http';

interface StreamEvent {
  id: string;
  type: string;
  /** When the reader got it (Date.now()). */
  at: number;
  data: { type: string; data: { id: number } };
}

/** Reads GET /api/events/stream of a running platform; `events` fills as they come. */
export function readEventStream(
  url: string,
): Promise<{ events: StreamEvent[]; ended: Promise<void>; close(): void }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/api/events/stream`, (res) => {
      if (res.statusCode !== 200) {
        reject(new Error(`stream answered ${res.statusCode}`));
        return;
      }
      const events: StreamEvent[] = [];
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        for (let end = text.indexOf('\n\n'); end >= 0; end = text.indexOf('\n\n')) {
          const fields = new Map(
            text
              .slice(0, end)
              .split('\n')
              .filter((line) => !line.startsWith(':'))
              .map((line) => [
                line.slice(0, line.indexOf(': ')),
                line.slice(line.indexOf(': ') + 2),
              ]),
          );
          text = text.slice(end + 2);
          if (fields.has('data')) {
            events.push({
              id: fields.get('id') as string,
              type: fields.get('event') as string,
              at: Date.now(),
              data: JSON.parse(fields.get('data') as string),
            });
          }
        }
      });
      const ended = new Promise<void>((done) => res.once('close', () => done()));
      resolve({ events, ended, close: () => req.destroy() });
    });
    req.on('error', reject);
    req.end();
  });
}
