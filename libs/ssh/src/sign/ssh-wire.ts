/** RFC 4251 wire encoding: the pieces an OpenSSH certificate is made of. */

export function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
}

export function u64(n: bigint): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt.asUintN(64, n));
  return b;
}

/** A length-prefixed byte string. */
export function sshString(data: Buffer | string): Buffer {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  return Buffer.concat([u32(bytes.length), bytes]);
}

/** A positive multiple-precision integer from big-endian bytes (leading zeros trimmed, sign byte added). */
export function mpint(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length && bytes[start] === 0) start++;
  let body = bytes.subarray(start);
  if (body.length > 0 && (body[0] ?? 0) & 0x80) body = Buffer.concat([Buffer.from([0]), body]);
  return sshString(body);
}

/** Reads the length-prefixed strings of a blob in order. */
export function readStrings(blob: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  while (at < blob.length) {
    if (at + 4 > blob.length) throw new Error('truncated SSH blob');
    const len = blob.readUInt32BE(at);
    if (at + 4 + len > blob.length) throw new Error('truncated SSH blob');
    out.push(blob.subarray(at + 4, at + 4 + len));
    at += 4 + len;
  }
  return out;
}

/**
 * Critical options and extensions: name/data pairs sorted by name, where the data of a non-empty
 * value is itself a string holding the value (PROTOCOL.certkeys), and of an empty value nothing.
 */
export function optionList(options: Record<string, string>): Buffer {
  const names = Object.keys(options).sort();
  return Buffer.concat(
    names.map((name) => {
      const value = options[name] ?? '';
      return Buffer.concat([sshString(name), sshString(value === '' ? Buffer.alloc(0) : sshString(value))]);
    }),
  );
}
