import type { IncomingMessage } from 'node:http';

/** Past this much, an oversized body is no longer read to its end: the connection is cut after the 413. */
const DISCARD_LIMIT = 16 * 1024 * 1024;

/**
 * Reads a request body of at most `max` bytes. A larger one answers 'too-large' once it was read to
 * its end (so the client sees the 413 rather than a reset), or at once when it is huge (the caller's
 * reply carries `Connection: close`); 'aborted' when the client went away.
 */
export function readBody(req: IncomingMessage, max: number): Promise<Buffer | 'too-large' | 'aborted'> {
  return new Promise((resolve) => {
    const declared = Number(req.headers['content-length'] ?? NaN);
    if (declared > DISCARD_LIMIT) {
      req.pause();
      resolve('too-large');
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (r: Buffer | 'too-large' | 'aborted') => {
      req.off('data', onData).off('end', onEnd).off('error', onAbort).off('close', onClose);
      resolve(r);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= max) chunks.push(chunk);
      else if (size > DISCARD_LIMIT) { req.pause(); finish('too-large'); }
    };
    const onEnd = () => finish(size > max ? 'too-large' : Buffer.concat(chunks, size));
    const onAbort = () => finish('aborted');
    const onClose = () => { if (!req.complete) finish('aborted'); };
    req.on('data', onData).on('end', onEnd).on('error', onAbort).on('close', onClose);
  });
}
