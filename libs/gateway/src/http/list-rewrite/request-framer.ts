/**
 * A streaming HTTP/1.1 request-framing parser that sits in front of Node's own parser (llhttp).
 *
 * Vault clients send the LIST verb, which llhttp rejects before any framework sees the request.
 * This parser finds request boundaries in the raw byte stream, rewrites the request line
 * `LIST /p?q HTTP/1.1` to `GET /p?list=true&q HTTP/1.1` and passes every other byte unchanged.
 *
 * Two parsers framing the same bytes are a request-smuggling risk if they disagree on where a
 * request ends. So this one only accepts framing that has exactly one reading and refuses the rest
 * (both Content-Length and Transfer-Encoding, duplicate or malformed Content-Length, any
 * Transfer-Encoding other than `chunked`, obs-fold, bare CR/LF in heads, chunk lines or trailers).
 * Whatever it accepts, llhttp either reads the same way or rejects on its own. Request heads are
 * held back until complete, so a refused head never reaches Node in part.
 *
 * `Upgrade` fields are dropped (request-head.ts): Node never switches a connection away from HTTP,
 * so this parser frames every request of a connection. Heads with more than 1000 fields are
 * refused (431) rather than cut short by Node.
 */

import { FramingError } from './framing-error';
import { hexValue, isTokenByte } from './http-syntax';
import { analyseHead, needsRewrite, rewriteHead } from './request-head';

export { FramingError } from './framing-error';
export { rewriteListTarget } from './http-syntax';

const CR = 13;
const LF = 10;
const SEMICOLON = 59;
const HTAB = 9;
const SP = 32;
const COLON = 58;

export interface FramerLimits {
  /** request line + header fields (Node's own default limit is 16 KiB) */
  maxHeadBytes: number;
  /** one chunk-size line including extensions */
  maxChunkLineBytes: number;
  /** the whole trailer section */
  maxTrailerBytes: number;
  /** header fields of one request (default 1000) */
  maxHeaderFields?: number;
}

export const DEFAULT_FRAMER_LIMITS: FramerLimits = {
  maxHeadBytes: 64 * 1024,
  maxChunkLineBytes: 4 * 1024,
  maxTrailerBytes: 64 * 1024,
};

export interface FeedResult {
  /** bytes to hand to Node's parser, in order */
  out: Buffer[];
  /** set once the stream is refused; the caller answers `status` and closes the connection */
  error?: FramingError;
}

const enum State {
  Head,
  FixedBody,
  ChunkSize,
  ChunkData,
  ChunkDataCR,
  ChunkDataLF,
  Trailers,
  Failed,
}

/** Safe upper bound for a chunk size (hex digits are accumulated as a JS number). */
const MAX_CHUNK_SIZE = Number.MAX_SAFE_INTEGER;

export class RequestFramer {
  private state = State.Head;
  /** head bytes of the current request held back from previous chunks */
  private headParts: Buffer[] = [];
  private headLength = 0;
  private lineLength = 0;
  private lines = 0;
  private sawCR = false;
  /** body bytes left (fixed body) or chunk bytes left (chunk data) */
  private remaining = 0;
  // chunk-size line
  private sizeDigits = 0;
  private chunkSize = 0;
  private inExtension = false;
  // trailer section
  private trailerBytes = 0;
  private trailerInName = true;
  private trailerNameLength = 0;
  private requestCount = 0;
  private errorOffset = 0;

  constructor(private readonly limits: FramerLimits = DEFAULT_FRAMER_LIMITS) {}

  /** Number of request heads handed to Node so far. */
  get requests(): number {
    return this.requestCount;
  }

  /** True between requests (no partial request was handed to Node). */
  get atBoundary(): boolean {
    return this.state === State.Head;
  }

  feed(chunk: Buffer): FeedResult {
    const out: Buffer[] = [];
    if (this.state === State.Failed) return { out, error: new FramingError('connection refused', 400, true) };
    const n = chunk.length;
    let i = 0;
    // bytes [passStart, i) of this chunk are forwarded unchanged when flushed
    let passStart = 0;
    let headStart = this.state === State.Head ? 0 : -1;
    try {
      while (i < n) {
        switch (this.state as State) {
          case State.Head: {
            if (headStart < 0) headStart = i;
            const end = this.scanHead(chunk, i);
            if (end < 0) {
              i = n;
              break;
            }
            const head = this.takeHead(chunk, headStart, end);
            const rewritten = this.completeHead(head);
            if (passStart < headStart) out.push(chunk.subarray(passStart, headStart));
            if (rewritten) {
              out.push(rewritten);
              passStart = end;
            } else {
              for (const part of this.headParts) out.push(part);
              passStart = headStart;
            }
            this.headParts = [];
            this.headLength = 0;
            headStart = -1;
            i = end;
            break;
          }
          case State.FixedBody:
          case State.ChunkData: {
            const take = Math.min(this.remaining, n - i);
            this.remaining -= take;
            i += take;
            if (this.remaining === 0)
              this.state = this.state === State.FixedBody ? State.Head : State.ChunkDataCR;
            break;
          }
          case State.ChunkSize:
            i = this.scanChunkSize(chunk, i);
            break;
          case State.ChunkDataCR:
            if (chunk[i] !== CR) throw this.bodyError('invalid chunk terminator', i);
            this.state = State.ChunkDataLF;
            i++;
            break;
          case State.ChunkDataLF:
            if (chunk[i] !== LF) throw this.bodyError('invalid chunk terminator', i);
            this.startChunkSize();
            i++;
            break;
          case State.Trailers:
            i = this.scanTrailers(chunk, i);
            break;
          case State.Failed:
            throw new FramingError('connection refused', 400, true);
        }
      }
    } catch (error) {
      if (!(error instanceof FramingError)) throw error;
      this.state = State.Failed;
      this.headParts = [];
      const stop = error.atBoundary ? Math.max(headStart, 0) : this.errorOffset;
      if (passStart < stop) out.push(chunk.subarray(passStart, stop));
      return { out, error };
    }
    if (this.state === State.Head && headStart >= 0) {
      // The head continues in the next chunk: hold its bytes back.
      if (passStart < headStart) out.push(chunk.subarray(passStart, headStart));
      if (headStart < n) this.headParts.push(chunk.subarray(headStart, n));
    } else if (passStart < n) {
      out.push(chunk.subarray(passStart, n));
    }
    return { out };
  }

  /**
   * Scans head bytes from `i`; returns the index just past the blank line ending the head, or -1
   * when the chunk ended first. Every CR must be followed by LF and every LF preceded by CR.
   */
  private scanHead(chunk: Buffer, start: number): number {
    const n = chunk.length;
    let i = start;
    const budget = this.limits.maxHeadBytes - this.headLength;
    while (i < n) {
      if (i - start >= budget) throw new FramingError('request header fields too large', 431, true);
      const b = chunk[i];
      i++;
      if (this.sawCR) {
        if (b !== LF) throw this.headError('bare CR in request head');
        this.sawCR = false;
        if (this.lineLength === 0) {
          // An empty line ends the head; empty lines before the request line are allowed (RFC 9112 §2.2).
          if (this.lines > 0) {
            this.resetHeadScan();
            return i;
          }
        } else {
          this.lines++;
          this.lineLength = 0;
        }
      } else if (b === CR) {
        this.sawCR = true;
      } else if (b === LF) {
        throw this.headError('bare LF in request head');
      } else {
        this.lineLength++;
      }
    }
    this.headLength += i - start;
    return -1;
  }

  private resetHeadScan(): void {
    this.lines = 0;
    this.lineLength = 0;
    this.sawCR = false;
  }

  private takeHead(chunk: Buffer, headStart: number, end: number): Buffer {
    const tail = chunk.subarray(headStart, end);
    if (this.headParts.length === 0) return tail;
    return Buffer.concat([...this.headParts, tail]);
  }

  /**
   * Validates a complete head and sets the framing of its body. Returns the rewritten head for
   * LIST requests and heads with Upgrade, undefined when the head is forwarded unchanged.
   */
  private completeHead(head: Buffer): Buffer | undefined {
    const text = head.toString('latin1');
    const info = analyseHead(text, this.limits.maxHeaderFields);
    this.requestCount++;
    if (info.chunked) this.startChunkSize();
    else if (info.contentLength > 0) {
      this.state = State.FixedBody;
      this.remaining = info.contentLength;
    } else this.state = State.Head;
    return needsRewrite(info) ? Buffer.from(rewriteHead(text, info), 'latin1') : undefined;
  }

  private startChunkSize(): void {
    this.state = State.ChunkSize;
    this.sizeDigits = 0;
    this.chunkSize = 0;
    this.inExtension = false;
    this.sawCR = false;
    this.lineLength = 0;
  }

  /** chunk-size [ chunk-ext ] CRLF; no whitespace around the size, no CTLs in extensions. */
  private scanChunkSize(chunk: Buffer, start: number): number {
    const n = chunk.length;
    let i = start;
    while (i < n) {
      const b = chunk[i] ?? 0;
      i++;
      if (++this.lineLength > this.limits.maxChunkLineBytes)
        throw this.bodyError('chunk-size line too long', i - 1);
      if (this.sawCR) {
        if (b !== LF) throw this.bodyError('bare CR in chunk-size line', i - 1);
        this.sawCR = false;
        if (this.sizeDigits === 0) throw this.bodyError('invalid chunk size', i - 1);
        if (this.chunkSize === 0) this.startTrailers();
        else {
          this.state = State.ChunkData;
          this.remaining = this.chunkSize;
        }
        return i;
      }
      if (b === CR) {
        this.sawCR = true;
      } else if (b === LF) {
        throw this.bodyError('bare LF in chunk-size line', i - 1);
      } else if (this.inExtension) {
        if ((b < SP && b !== HTAB) || b === 0x7f) throw this.bodyError('invalid chunk extension', i - 1);
      } else if (b === SEMICOLON) {
        if (this.sizeDigits === 0) throw this.bodyError('invalid chunk size', i - 1);
        this.inExtension = true;
      } else {
        const digit = hexValue(b);
        if (digit < 0) throw this.bodyError('invalid chunk size', i - 1);
        if (this.chunkSize > (MAX_CHUNK_SIZE - digit) / 16)
          throw this.bodyError('chunk size too large', i - 1);
        this.chunkSize = this.chunkSize * 16 + digit;
        this.sizeDigits++;
      }
    }
    return i;
  }

  private startTrailers(): void {
    this.state = State.Trailers;
    this.trailerBytes = 0;
    this.trailerInName = true;
    this.trailerNameLength = 0;
    this.lineLength = 0;
    this.sawCR = false;
  }

  /** Trailer field lines (token ":" value) until the empty line that ends the message. */
  private scanTrailers(chunk: Buffer, start: number): number {
    const n = chunk.length;
    let i = start;
    while (i < n) {
      const b = chunk[i] ?? 0;
      i++;
      if (++this.trailerBytes > this.limits.maxTrailerBytes)
        throw this.bodyError('trailer section too large', i - 1);
      if (this.sawCR) {
        if (b !== LF) throw this.bodyError('bare CR in trailer section', i - 1);
        this.sawCR = false;
        if (this.lineLength === 0) {
          this.state = State.Head;
          this.resetHeadScan();
          return i;
        }
        if (this.trailerInName) throw this.bodyError('invalid trailer field', i - 1);
        this.lineLength = 0;
        this.trailerInName = true;
        this.trailerNameLength = 0;
        continue;
      }
      if (b === CR) {
        this.sawCR = true;
        continue;
      }
      if (b === LF) throw this.bodyError('bare LF in trailer section', i - 1);
      if (this.lineLength === 0 && (b === SP || b === HTAB)) {
        throw this.bodyError('obsolete line folding is not allowed', i - 1);
      }
      this.lineLength++;
      if (this.trailerInName) {
        if (b === COLON) {
          if (this.trailerNameLength === 0) throw this.bodyError('invalid trailer field', i - 1);
          this.trailerInName = false;
        } else if (!isTokenByte(b)) {
          throw this.bodyError('invalid trailer field', i - 1);
        } else {
          this.trailerNameLength++;
        }
      } else if ((b < SP && b !== HTAB) || b === 0x7f) {
        throw this.bodyError('invalid trailer field', i - 1);
      }
    }
    return i;
  }

  private headError(message: string): FramingError {
    return new FramingError(message, 400, true);
  }

  /** `at`: index of the offending byte in the current chunk; bytes before it are still forwarded. */
  private bodyError(message: string, at: number): FramingError {
    this.errorOffset = at;
    return new FramingError(message, 400, false);
  }
}
