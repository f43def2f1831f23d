import { createServer, connect, type Server, type Socket } from 'node:net';
import { freePort } from '@coffer/testing';

/**
 * A TCP proxy in front of an LDAP server that can swallow modify responses: once armed, every
 * ModifyResponse (LDAP application tag 7, BER 0x67) from the server is dropped, so the client's
 * password change reaches the directory but the client never learns it did (the window a kill -9
 * must hit). Everything else passes through.
 */
export interface LdapProxy {
  url: string;
  swallowModifyResponses(on: boolean): void;
  /** modify responses dropped so far */
  swallowed: number;
  stop(): Promise<void>;
}

/** Splits a buffer of BER LDAPMessages; answers the complete messages and the rest. */
function splitMessages(buffer: Buffer): { messages: Buffer[]; rest: Buffer } {
  const messages: Buffer[] = [];
  let offset = 0;
  while (offset + 2 <= buffer.length) {
    const first = buffer[offset + 1] as number;
    let length = first;
    let header = 2;
    if (first & 0x80) {
      const bytes = first & 0x7f;
      if (offset + 2 + bytes > buffer.length) break;
      length = 0;
      for (let i = 0; i < bytes; i++) length = length * 256 + (buffer[offset + 2 + i] as number);
      header = 2 + bytes;
    }
    if (offset + header + length > buffer.length) break;
    messages.push(buffer.subarray(offset, offset + header + length));
    offset += header + length;
  }
  return { messages, rest: buffer.subarray(offset) };
}

/** The protocolOp tag of an LDAPMessage: after the SEQUENCE header and the messageID INTEGER. */
function opTag(message: Buffer): number | undefined {
  const first = message[1] as number;
  const header = first & 0x80 ? 2 + (first & 0x7f) : 2;
  const idLength = message[header + 1] as number;
  return message[header + 2 + idLength];
}

export async function startLdapProxy(target: { host: string; port: number }): Promise<LdapProxy> {
  const sockets = new Set<Socket>();
  const state = { swallow: false, swallowed: 0 };
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    sockets.add(client).add(upstream);
    let pending: Buffer = Buffer.alloc(0);
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk: Buffer) => {
      const { messages, rest } = splitMessages(Buffer.concat([pending, chunk]));
      pending = rest;
      for (const message of messages) {
        if (state.swallow && opTag(message) === 0x67) state.swallowed++;
        else client.write(message);
      }
    });
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', close).on('error', close);
    upstream.on('close', close).on('error', close);
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `ldap://127.0.0.1:${port}`,
    swallowModifyResponses: (on) => {
      state.swallow = on;
    },
    get swallowed() {
      return state.swallowed;
    },
    stop: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
