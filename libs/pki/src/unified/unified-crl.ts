import type { UnifiedRevocation } from './unified-revocation.events';

export interface RevokedSerial {
  serial: string;
  revokedMs: number;
}

/**
 * The unified CRL's list: this cluster's own revocations, and every cluster's unified entries
 * of the CA signing it (an entry of a replaced CA is not that CA's to list); one line per
 * serial (a cluster's own revocation and its entry are the same), by serial.
 */
export function unifiedCrlEntries(
  own: readonly RevokedSerial[],
  entries: ReadonlyMap<string, UnifiedRevocation>,
  issuerKeyId: string,
): RevokedSerial[] {
  const bySerial = new Map(own.map((r) => [r.serial, r]));
  for (const e of entries.values()) {
    if (e.issuerKeyId !== issuerKeyId || bySerial.has(e.serial)) continue;
    bySerial.set(e.serial, { serial: e.serial, revokedMs: e.revokedAtMs });
  }
  return [...bySerial.values()].sort((a, b) => a.serial.localeCompare(b.serial));
}
