import { BlockList, isIP } from 'node:net';
import { invalidRequest } from './domain-errors';

/** An IP address or CIDR block, normalised; Vault's bound-CIDR error text otherwise. */
export function validateCidr(value: string): string {
  const [addr = '', bits, extra] = value.split('/');
  const family = isIP(addr);
  const max = family === 4 ? 32 : 128;
  const prefix = bits === undefined ? max : /^\d+$/.test(bits) ? Number(bits) : NaN;
  if (family === 0 || extra !== undefined || !(prefix >= 0 && prefix <= max)) {
    throw invalidRequest(`invalid value ${JSON.stringify(value)} when parsing bound cidrs`);
  }
  return `${addr}/${prefix}`;
}

/** Whether `address` may log in under these bound CIDRs (none = anywhere). */
export function cidrAllows(cidrs: readonly string[], address: string): boolean {
  if (cidrs.length === 0) return true;
  const family = isIP(address);
  if (family === 0) return false;
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [addr = '', bits] = cidr.split('/');
    const type = isIP(addr) === 4 ? 'ipv4' : 'ipv6';
    // A bare address (as a role keeps it) is that one host.
    list.addSubnet(addr, bits === undefined ? (type === 'ipv4' ? 32 : 128) : Number(bits), type);
  }
  return list.check(address, family === 4 ? 'ipv4' : 'ipv6');
}
