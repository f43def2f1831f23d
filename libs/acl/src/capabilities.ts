/**
 * Capabilities as a bitmap, like Vault. `subscribe` and `recover` are accepted because current
 * Vault accepts them in policies; no Operation maps to them here, so they only ever show up in
 * capability listings.
 */
export const CAPABILITY_NAMES = [
  'deny',
  'create',
  'read',
  'update',
  'delete',
  'list',
  'sudo',
  'patch',
  'subscribe',
  'recover',
] as const;
export type Capability = (typeof CAPABILITY_NAMES)[number];

export const CAP = {
  deny: 1 << 0,
  create: 1 << 1,
  read: 1 << 2,
  update: 1 << 3,
  delete: 1 << 4,
  list: 1 << 5,
  sudo: 1 << 6,
  patch: 1 << 7,
  subscribe: 1 << 8,
  recover: 1 << 9,
} as const satisfies Record<Capability, number>;

export const isCapability = (s: string): s is Capability =>
  (CAPABILITY_NAMES as readonly string[]).includes(s);

/** Bits a path must carry to be "visible" (Vault's hasMountAccess list). */
export const VISIBLE_BITS = CAP.create | CAP.read | CAP.update | CAP.delete | CAP.list | CAP.sudo | CAP.patch;

const SORTED = [...CAPABILITY_NAMES].filter((c) => c !== 'deny').sort();

/**
 * Capability names of a bitmap, sorted like Vault's sys/capabilities (sort.Strings); "deny"
 * alone when deny is set or nothing is granted.
 */
export function capabilityList(bitmap: number): string[] {
  if (bitmap & CAP.deny) return ['deny'];
  const out = SORTED.filter((c) => bitmap & CAP[c]);
  return out.length ? out : ['deny'];
}

/** The order Vault's sys/internal/ui/resultant-acl lists capabilities in (no patch there). */
const RESULTANT_ORDER: Capability[] = ['create', 'delete', 'list', 'read', 'sudo', 'update'];

export function resultantCapabilityList(bitmap: number): string[] {
  if (bitmap & CAP.deny) return ['deny'];
  const out = RESULTANT_ORDER.filter((c) => bitmap & CAP[c]);
  return out.length ? out : ['deny'];
}
