import { parseDuration } from '@coffer/config';
import type { MountInfo } from '@coffer/contracts';
import { getOwn, SYSTEM_DEFAULT_LEASE_TTL, type JsonObject } from '@coffer/contracts';
import type { FlatEvent } from './flat.events';

/** Pure rules of unversioned secrets (kv v1 and cubbyhole). */

export interface FlatState {
  keyId: string;
}

export function decideWrite(sealed: { keyId: string; ciphertext: string }): FlatEvent[] {
  return [{ type: 'SecretWritten', data: sealed }];
}

export function decideDelete(state: FlatState | null): FlatEvent[] {
  return state ? [{ type: 'SecretDeleted', data: {} }] : [];
}

/**
 * kv v1 read advice: a `ttl` key (else `lease`) holding a duration sets lease_duration; otherwise
 * the mount's default lease TTL. No lease is created (lease_id stays empty, not renewable).
 */
export function leaseAdvice(data: JsonObject, mount: Pick<MountInfo, 'config'>): number {
  const fallback =
    mount.config.default_lease_ttl > 0 ? mount.config.default_lease_ttl : SYSTEM_DEFAULT_LEASE_TTL;
  const raw = getOwn(data, 'ttl') ?? getOwn(data, 'lease');
  if (typeof raw !== 'string' && typeof raw !== 'number') return fallback;
  try {
    const seconds = parseDuration(raw);
    return seconds >= 0 ? seconds : fallback;
  } catch {
    return fallback;
  }
}
