// Reading an HTTP answer without ever holding more of it than a cap: chunk by chunk, stopping (and
// closing the stream) as soon as the declared length or the bytes read pass it, so an endless or
// huge body costs at most the cap in memory. The callers say what a too-large answer means.

export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`the answer is larger than ${describeBytes(limit)}`);
    this.name = 'BodyTooLargeError';
  }
}

function describeBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB` : `${bytes} bytes`;
}

export async function readBodyWithin(body: AsyncIterable<Buffer> & { destroy(): unknown }, declaredLength: string | undefined, limit: number): Promise<string> {
  if (Number(declaredLength ?? 0) > limit) {
    body.destroy();
    throw new BodyTooLargeError(limit);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > limit) {
      body.destroy();
      throw new BodyTooLargeError(limit);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
