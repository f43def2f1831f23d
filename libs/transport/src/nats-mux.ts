import { ErrorCode, NatsError, createInbox, type Msg, type MsgHdrs, type NatsConnection } from 'nats';

interface Pending {
  resolve(msg: Msg): void;
  reject(error: NatsError): void;
  timer: NodeJS.Timeout;
}

const NO_RESPONDERS_STATUS = 503;

/**
 * Request/reply over one wildcard inbox subscription, like nats.js's own muxed request but without
 * its per-request costs: nats.js builds a NatsError (a stack capture) for every request, even a
 * successful one, and a nuid token. Here a request costs a counter, a timer and a map entry; errors
 * are only built on failure. Failures are NatsErrors with the codes nats.js would use.
 */
export class ReplyMux {
  private readonly pending = new Map<string, Pending>();
  private readonly prefix: string;
  private next = 0;

  constructor(private readonly nc: NatsConnection) {
    this.prefix = `${createInbox()}.`;
    nc.subscribe(`${this.prefix}*`, {
      // An inbox error (e.g. a permissions violation) leaves requests to their time-out.
      callback: (err, msg) => {
        if (err === null) this.onReply(msg);
      },
    });
  }

  request(subject: string, data: Uint8Array, headers: MsgHdrs | undefined, timeoutMs: number): Promise<Msg> {
    const token = (this.next++).toString(36);
    return new Promise<Msg>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(token);
        reject(NatsError.errorForCode(ErrorCode.Timeout));
      }, timeoutMs);
      this.pending.set(token, { resolve, reject, timer });
      try {
        this.nc.publish(subject, data, { reply: this.prefix + token, headers });
      } catch (error) {
        clearTimeout(timer);
        this.pending.delete(token);
        reject(error instanceof NatsError ? error : new NatsError(String(error), ErrorCode.Unknown));
      }
    });
  }

  /** Fails every request still waiting (the connection is gone). */
  rejectAll(code: ErrorCode): void {
    for (const [token, pending] of this.pending) {
      clearTimeout(pending.timer);
      this.pending.delete(token);
      pending.reject(NatsError.errorForCode(code));
    }
  }

  private onReply(msg: Msg): void {
    const token = msg.subject.slice(this.prefix.length);
    const pending = this.pending.get(token);
    // Late replies (after a time-out) and duplicates have nobody waiting: drop them.
    if (pending === undefined) return;
    this.pending.delete(token);
    clearTimeout(pending.timer);
    // The server answers a request nobody subscribes to with an empty 503 status message.
    if (msg.data.length === 0 && msg.headers?.code === NO_RESPONDERS_STATUS) {
      pending.reject(NatsError.errorForCode(ErrorCode.NoResponders));
    } else {
      pending.resolve(msg);
    }
  }
}
