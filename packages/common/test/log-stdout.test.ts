import fs from 'node:fs';
import { setImmediate as turnEnd } from 'node:timers/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../src/logger.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/** Every write(2) to stdout, kept instead of made; other descriptors as usual. */
function stdoutWrites(): string[] {
  const writes: string[] = [];
  const writeSync = fs.writeSync as (fd: number, text: string, ...rest: unknown[]) => number;
  vi.spyOn(fs, 'writeSync').mockImplementation(((fd: number, text: string, ...rest: unknown[]) => {
    if (fd !== 1) return writeSync(fd, text, ...rest);
    writes.push(String(text));
    return Buffer.byteLength(String(text));
  }) as typeof fs.writeSync);
  return writes;
}

describe('the shipped stdout destination', () => {
  it('writes the lines of one event-loop turn in one write, in order, when the turn ends', async () => {
    const writes = stdoutWrites();
    const logger = createLogger({ name: 'stdout-test', format: 'json' });
    for (let i = 0; i < 100; i++) logger.info({ i }, 'a line');
    expect(writes).toHaveLength(0);
    await turnEnd();
    expect(writes).toHaveLength(1);
    const lines = (writes[0] as string).split('\n').filter(Boolean);
    expect(lines.map((line) => JSON.parse(line).i)).toEqual([...Array(100).keys()]);

    logger.warn('the next turn');
    await turnEnd();
    expect(writes).toHaveLength(2);
    expect(JSON.parse(writes[1] as string)).toMatchObject({ level: 40, msg: 'the next turn' });
  });

  it('is one destination for every logger of the process, so their lines keep their order', async () => {
    const writes = stdoutWrites();
    const first = createLogger({ name: 'first', format: 'json' });
    const second = createLogger({ name: 'second', format: 'json' });
    first.info('one');
    second.info('two');
    first.info('three');
    await turnEnd();
    expect(writes).toHaveLength(1);
    const names = (writes[0] as string)
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line).name);
    expect(names).toEqual(['first', 'second', 'first']);
  });
});
