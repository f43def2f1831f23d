/** Vault's key usage and extended key usage names (case-insensitive; unknown names are ignored). */
const KEY_USAGES: Readonly<Record<string, number>> = {
  digitalsignature: 1,
  contentcommitment: 2,
  keyencipherment: 4,
  dataencipherment: 8,
  keyagreement: 16,
  certsign: 32,
  crlsign: 64,
  encipheronly: 128,
  decipheronly: 256,
};

const EXT_KEY_USAGES: Readonly<Record<string, string>> = {
  any: '2.5.29.37.0',
  serverauth: '1.3.6.1.5.5.7.3.1',
  clientauth: '1.3.6.1.5.5.7.3.2',
  codesigning: '1.3.6.1.5.5.7.3.3',
  emailprotection: '1.3.6.1.5.5.7.3.4',
  ipsecendsystem: '1.3.6.1.5.5.7.3.5',
  ipsectunnel: '1.3.6.1.5.5.7.3.6',
  ipsecuser: '1.3.6.1.5.5.7.3.7',
  timestamping: '1.3.6.1.5.5.7.3.8',
  ocspsigning: '1.3.6.1.5.5.7.3.9',
  microsoftservergatedcrypto: '1.3.6.1.4.1.311.10.3.3',
  netscapeservergatedcrypto: '2.16.840.1.113730.4.1',
  microsoftcommercialcodesigning: '1.3.6.1.4.1.311.2.1.22',
  microsoftkernelcodesigning: '1.3.6.1.4.1.311.61.1.1',
};

export const KEY_USAGE_CERT_SIGN = 32;
export const KEY_USAGE_CRL_SIGN = 64;

/** Flags of the named key usages (Vault's parseKeyUsages: "KeyUsage" prefixes allowed too). */
export function keyUsageFlags(names: readonly string[]): number {
  let flags = 0;
  for (const name of names)
    flags |=
      KEY_USAGES[
        name
          .toLowerCase()
          .replace(/^keyusage/, '')
          .trim()
      ] ?? 0;
  return flags;
}

export interface EkuSource {
  server_flag: boolean;
  client_flag: boolean;
  code_signing_flag: boolean;
  email_protection_flag: boolean;
  ext_key_usage: readonly string[];
  ext_key_usage_oids: readonly string[];
}

/** The EKU OIDs of a role: its flags, then its named usages, then its raw OIDs (no duplicates). */
export function extKeyUsageOids(role: EkuSource): string[] {
  const out: string[] = [];
  if (role.server_flag) out.push(EXT_KEY_USAGES['serverauth'] ?? '');
  if (role.client_flag) out.push(EXT_KEY_USAGES['clientauth'] ?? '');
  if (role.code_signing_flag) out.push(EXT_KEY_USAGES['codesigning'] ?? '');
  if (role.email_protection_flag) out.push(EXT_KEY_USAGES['emailprotection'] ?? '');
  for (const name of role.ext_key_usage) {
    const oid =
      EXT_KEY_USAGES[
        name
          .toLowerCase()
          .replace(/^extkeyusage/, '')
          .trim()
      ];
    if (oid) out.push(oid);
  }
  out.push(...role.ext_key_usage_oids.filter((o) => o.trim() !== ''));
  return [...new Set(out)];
}

/**
 * policy_identifiers: OIDs, or JSON objects `{"oid": ..., ...}` (qualifiers are not written).
 * Returns the OIDs, or the first entry that is neither.
 */
export function policyOids(entries: readonly string[]): { oids: string[]; bad?: string } {
  const oids: string[] = [];
  for (const entry of entries) {
    let text = entry.trim();
    if (text.startsWith('{')) {
      try {
        const parsed = JSON.parse(text) as { oid?: unknown };
        text = typeof parsed.oid === 'string' ? parsed.oid : '';
      } catch {
        return { oids, bad: entry };
      }
    }
    if (!/^[0-2](\.\d+)+$/.test(text)) return { oids, bad: entry };
    oids.push(text);
  }
  return { oids };
}
