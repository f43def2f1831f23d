import type { IncomingMessage } from 'node:http';
import { DomainError } from '@coffer/contracts';
import { JsonLimitScanner, type JsonLimits } from '../request/json-limits';

export interface BodyLimits {
  /** bytes (the listener's max_request_size) */
  maxBytes: number;
  json: JsonLimits;
}

const tooLarge = (): DomainError => new DomainError('payload_too_large', 'http: request body too large');

/**
 * Reads a request body that nothing has read yet, only when the pipeline asks for it (after the
 * token check), refusing it as soon as it is over the size limit or, for JSON, over the JSON limits
 * (scanned chunk by chunk as it arrives). On refusal the rest of the body is drained unparsed so
 * that the connection stays usable.
 */
export function readBody(
  req: IncomingMessage,
  limits: BodyLimits,
  json: boolean,
): Promise<Buffer | undefined> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limits.maxBytes) {
    req.resume();
    return Promise.reject(tooLarge());
  }
  if (req.readableEnded) return Promise.resolve(undefined);
  const scanner = json ? new JsonLimitScanner(limits.json) : undefined;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const cleanup = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const refuse = (error: Error): void => {
      cleanup();
      req.resume();
      reject(error);
    };
    const onData = (chunk: Buffer): void => {
      length += chunk.length;
      if (length > limits.maxBytes) return refuse(tooLarge());
      try {
        scanner?.feed(chunk);
      } catch (error) {
        return refuse(error instanceof Error ? error : new Error('JSON limit check failed'));
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(length === 0 ? undefined : Buffer.concat(chunks, length));
    };
    // the client went away mid-body: its fault, and nobody is left to answer
    const onError = (): void => {
      cleanup();
      reject(new DomainError('invalid_request', 'the request body was not received in full'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}
