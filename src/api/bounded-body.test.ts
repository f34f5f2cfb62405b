import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readBodyWithin } from './bounded-body.js';

/** A body that would go on for ever, counting what was pulled from it. */
function endless(): Readable & { pulled: number } {
  const chunk = Buffer.alloc(64 * 1024, 'x');
  const stream = Object.assign(new Readable({ read: () => void stream.push(chunk) }), { pulled: 0 });
  stream.on('data', (c: Buffer) => (stream.pulled += c.length));
  return stream;
}

describe('readBodyWithin', () => {
  it('reads an answer within the cap whole', async () => {
    await expect(readBodyWithin(Readable.from([Buffer.from('{"data":'), Buffer.from('[]}')]), undefined, 100)).resolves.toBe('{"data":[]}');
  });

  it('stops an endless body just past the cap and closes it', async () => {
    const body = endless();
    await expect(readBodyWithin(body, undefined, 1024 * 1024)).rejects.toThrow('the answer is larger than 1 MiB');
    expect(body.destroyed).toBe(true);
    expect(body.pulled).toBeLessThan(2 * 1024 * 1024);
  });

  it('refuses a declared length beyond the cap before reading anything', async () => {
    const body = endless();
    await expect(readBodyWithin(body, String(2 * 1024 ** 3), 1024 * 1024)).rejects.toThrow('larger than 1 MiB');
    expect(body.pulled).toBe(0);
  });
});
