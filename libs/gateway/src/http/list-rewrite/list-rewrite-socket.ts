import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { DEFAULT_FRAMER_LIMITS, RequestFramer, type FramerLimits, type FramingError } from './request-framer';

/**
 * The socket Node's HTTP server sees: a Duplex over the real TCP socket whose readable side is the
 * framer's output (LIST rewritten, everything else unchanged) and whose writable side writes
 * straight to the TCP socket. Node reads it through `data` events because it has no `_handle`.
 *
 * Requests of one connection are handled one at a time, in order, as Vault does: Node parses
 * pipelined requests at once, so the handler of the next one only starts once the previous
 * response is finished (dispatch()). RFC 9112 §9.3.2 would allow parallel safe methods; strict
 * order is simpler and a GET pipelined after a write sees the write.
 *
 * A refused stream is answered with the framer's status and `{"errors":[...]}` and the connection
 * closes. Requests complete before the refused one (pipelining) are answered first, so responses
 * never interleave and none is lost.
 */
export class ListRewriteSocket extends Duplex {
  private readonly framer: RequestFramer;
  private responsesDone = 0;
  /** a response is being produced; later requests wait in `waiting` */
  private busy = false;
  private readonly waiting: Array<() => void> = [];
  private refusal: FramingError | undefined;
  /** set once the refusal is written: the raw socket finishes on its own, Node's side is dropped */
  private detached = false;

  constructor(
    readonly raw: Socket,
    limits: FramerLimits = DEFAULT_FRAMER_LIMITS,
  ) {
    super({ allowHalfOpen: true, decodeStrings: true });
    this.framer = new RequestFramer(limits);
    raw.on('data', (chunk: Buffer) => this.onRawData(chunk));
    raw.on('end', () => {
      if (this.refusal === undefined) this.push(null);
    });
    raw.on('error', (error) => {
      if (!this.detached) this.destroy(error);
    });
    raw.on('close', () => {
      if (!this.destroyed) this.destroy();
    });
    raw.on('timeout', () => this.emit('timeout'));
  }

  get remoteAddress(): string | undefined {
    return this.raw.remoteAddress;
  }
  get remotePort(): number | undefined {
    return this.raw.remotePort;
  }
  get remoteFamily(): string | undefined {
    return this.raw.remoteFamily;
  }
  get localAddress(): string | undefined {
    return this.raw.localAddress;
  }
  get localPort(): number | undefined {
    return this.raw.localPort;
  }
  /** true over TLS (read by frameworks to tell http from https) */
  get encrypted(): boolean {
    return (this.raw as Socket & { encrypted?: boolean }).encrypted === true;
  }
  get bytesRead(): number {
    return this.raw.bytesRead;
  }
  get bytesWritten(): number {
    return this.raw.bytesWritten;
  }

  address(): AddressInfo | object {
    return this.raw.address();
  }

  setTimeout(ms: number, callback?: () => void): this {
    this.raw.setTimeout(ms);
    if (callback) this.once('timeout', callback);
    return this;
  }

  setNoDelay(noDelay?: boolean): this {
    this.raw.setNoDelay(noDelay);
    return this;
  }

  setKeepAlive(enable?: boolean, initialDelay?: number): this {
    this.raw.setKeepAlive(enable, initialDelay);
    return this;
  }

  ref(): this {
    this.raw.ref();
    return this;
  }

  unref(): this {
    this.raw.unref();
    return this;
  }

  /** Node's HTTP server calls this after the last response of a `Connection: close` exchange. */
  destroySoon(): void {
    if (this.writable) this.end();
    if (this.writableFinished) this.destroy();
    else this.once('finish', () => this.destroy());
  }

  /**
   * Runs `handle` for the request `res` answers once every earlier request of the connection is
   * answered. Counts answered requests too, so a refusal waits for the responses before it.
   */
  dispatch(res: ServerResponse, handle: () => void): void {
    res.once('close', () => {
      this.responsesDone++;
      this.busy = false;
      this.flushRefusalWhenIdle();
      this.next();
    });
    this.waiting.push(handle);
    this.next();
  }

  private next(): void {
    if (this.busy || this.detached || this.destroyed) return;
    const handle = this.waiting.shift();
    if (handle === undefined) return;
    this.busy = true;
    handle();
  }

  override _read(): void {
    if (!this.detached) this.raw.resume();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.detached) return callback();
    this.raw.write(chunk, callback);
  }

  override _writev(
    chunks: Array<{ chunk: Buffer; encoding: BufferEncoding }>,
    callback: (error?: Error | null) => void,
  ): void {
    if (this.detached) return callback();
    this.raw.cork();
    const last = chunks.length - 1;
    chunks.forEach(({ chunk }, i) => {
      if (i === last) this.raw.write(chunk, callback);
      else this.raw.write(chunk);
    });
    this.raw.uncork();
  }

  override _final(callback: (error?: Error | null) => void): void {
    if (this.detached) return callback();
    this.raw.end(() => callback());
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    if (!this.detached) this.raw.destroy();
    callback(error);
  }

  private onRawData(chunk: Buffer): void {
    if (this.refusal !== undefined) return;
    const { out, error } = this.framer.feed(chunk);
    let more = true;
    for (const part of out) more = this.push(part);
    if (!more) this.raw.pause();
    if (error) this.refuse(error);
  }

  private refuse(error: FramingError): void {
    this.refusal = error;
    this.raw.pause();
    this.flushRefusalWhenIdle();
  }

  /**
   * The refusal goes out once every request before the refused one is answered. A refused body
   * belongs to a request whose head Node already has: that one is never answered (nor handled:
   * dispatch() stops once the refusal is written).
   */
  private flushRefusalWhenIdle(): void {
    const error = this.refusal;
    if (error === undefined || this.detached) return;
    const before = this.framer.requests - (error.atBoundary ? 0 : 1);
    if (this.responsesDone >= before) this.writeRefusal();
  }

  private writeRefusal(): void {
    const error = this.refusal;
    if (error === undefined || this.detached) return;
    this.detached = true;
    if (!this.raw.destroyed) {
      const body = JSON.stringify({ errors: [error.message] });
      this.raw.write(
        `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? 'Bad Request'}\r\n` +
          'Content-Type: application/json\r\n' +
          'Cache-Control: no-store\r\n' +
          `Content-Length: ${Buffer.byteLength(body)}\r\n` +
          'Connection: close\r\n\r\n' +
          body,
      );
      this.raw.destroySoon();
    }
    // Node's side of the connection is abandoned: in-flight requests there are aborted.
    this.destroy();
  }
}
