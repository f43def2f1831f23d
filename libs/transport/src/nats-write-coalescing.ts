import type { NatsConnection } from 'nats';

/** The part of nats.js's (v2) internal ProtocolHandler the coalescing relies on. */
interface ProtocolHandler {
  outbound: { fill(buf: Uint8Array, ...payloads: Uint8Array[]): unknown; size(): number };
  pendingLimit: number;
  flushPending(): void;
  sendCommand(cmd: string | Uint8Array, ...payloads: Uint8Array[]): void;
}

function isProtocolHandler(value: unknown): value is ProtocolHandler {
  if (typeof value !== 'object' || value === null) return false;
  const p = value as Partial<Record<keyof ProtocolHandler, unknown>>;
  const outbound = p.outbound as Partial<Record<'fill' | 'size', unknown>> | undefined;
  return (
    typeof p.sendCommand === 'function' &&
    typeof p.flushPending === 'function' &&
    typeof p.pendingLimit === 'number' &&
    typeof outbound?.fill === 'function' &&
    typeof outbound.size === 'function'
  );
}

const encoder = new TextEncoder();

/**
 * nats.js writes its outbound buffer to the socket in a microtask after the first command, so
 * every HTTP request (each arrives in its own I/O callback) or every database reply costs one
 * socket write of its own. Under load, those writes were the largest single cost of the gateway
 * and kv processes. Flushing in `setImmediate` instead (the check phase right after the I/O
 * callbacks of the same loop turn) sends everything one turn produced in one write, at no added
 * latency beyond the rest of that turn. The size threshold nats.js flushes at is kept.
 *
 * Returns false (and changes nothing) when the connection is not the nats.js v2 shape this
 * relies on, so a client upgrade degrades to nats.js's own flushing rather than breaking.
 */
export function coalesceWrites(nc: NatsConnection): boolean {
  const protocol: unknown = (nc as unknown as { protocol?: unknown }).protocol;
  if (!isProtocolHandler(protocol)) return false;
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    protocol.flushPending();
  };
  protocol.sendCommand = (cmd, ...payloads) => {
    protocol.outbound.fill(typeof cmd === 'string' ? encoder.encode(cmd) : cmd, ...payloads);
    if (protocol.outbound.size() >= protocol.pendingLimit) {
      protocol.flushPending();
    } else if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
  return true;
}
