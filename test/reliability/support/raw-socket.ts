import { connect, type Socket } from 'node:net';

/** A TCP connection to a service, for clients that misbehave on purpose. */
export function openSocket(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Sends a GET and resolves once the first bytes of the answer have arrived (within 5 s). */
export async function startGet(url: string, path: string): Promise<Socket> {
  const socket = await openSocket(url);
  socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer to GET ${path} within 5 s`));
    }, 5000);
    socket.once('data', () => resolve(clearTimeout(timer)));
  });
  return socket;
}

/** Sends a GET and never reads the answer: the socket stays paused. */
export async function stallGet(url: string, path: string): Promise<Socket> {
  const socket = await openSocket(url);
  socket.pause();
  socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
  return socket;
}

/** Everything a socket receives until the other side closes it. */
export function readToEnd(socket: Socket): Promise<{ bytes: number; text: string }> {
  const chunks: Buffer[] = [];
  return new Promise((resolve) => {
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.once('close', () => {
      const all = Buffer.concat(chunks);
      resolve({ bytes: all.length, text: all.subarray(0, 4096).toString('utf8') });
    });
    socket.on('error', () => {});
    socket.resume();
  });
}
