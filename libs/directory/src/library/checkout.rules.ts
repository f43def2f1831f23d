import { invalidRequest } from '@coffer/contracts';
import type { directorySetReadSchema } from '@coffer/contracts/directory';
import type { z } from 'zod';
import type { AccountState, CheckOut, SetState } from '../records/record.state';

/**
 * The library's state table (contract "Directory library accounts"), pure:
 *   available   --check-out (an account is free)-->            checked out (lease; ttl capped at the set's)
 *   checked out --check-in (borrower entity/token, or enforcement disabled)--> available (listed in check_ins)
 *   checked out --manage check-in (privileged)-->               available (forced)
 *   checked out --lease ends-->                                 available (automatic)
 * Checking in an available account succeeds without listing it.
 */

/** Who is asking, as the engine knows a caller: entity id and the token's opaque reference. */
export interface Borrower {
  entityId: string;
  tokenRef: string;
}

/** An account can be lent: not lent, no password change under way, and a password Coffer knows. */
export const isAvailable = (account: AccountState): boolean =>
  account.checkout === null && account.password.pending === null && account.password.current !== null;

/** Vault's checkinAuthorized: the same entity, or the same token. */
export function borrowedBy(checkout: CheckOut, caller: Borrower): boolean {
  if (checkout.entity_id !== '' && caller.entityId !== '' && checkout.entity_id === caller.entityId)
    return true;
  return checkout.token_ref !== '' && caller.tokenRef !== '' && checkout.token_ref === caller.tokenRef;
}

/** A check-out's TTL: the set's, or a shorter one asked for (the set's 0 = unlimited). */
export function checkOutTtl(set: SetState, requested: number | undefined): number {
  if (requested === undefined) return set.ttl;
  if (set.ttl <= 0 && requested > 0) return requested;
  if (set.ttl > 0 && requested < set.ttl) return requested;
  return set.ttl;
}

/**
 * Which accounts a check-in takes back. `named` empty: the caller's one checked-out account (more
 * than one must be named). Named accounts lent to someone else are refused unless `force`
 * (the manage route) or the set disables enforcement; available ones are skipped.
 */
export function accountsToCheckIn(
  set: SetState,
  accounts: ReadonlyMap<string, AccountState>,
  named: readonly string[],
  caller: Borrower,
  force: boolean,
): string[] {
  const unenforced = force || set.disable_check_in_enforcement;
  const may = (checkout: CheckOut) => unenforced || borrowedBy(checkout, caller);
  if (named.length === 0) {
    const mine = set.service_account_names.filter((name) => {
      const checkout = accounts.get(name)?.checkout;
      return checkout != null && may(checkout);
    });
    if (mine.length > 1)
      throw invalidRequest(
        'when multiple service accounts are checked out, the "service_account_names" to check in must be provided',
      );
    return mine;
  }
  const out: string[] = [];
  for (const name of named) {
    const account = accounts.get(name);
    if (!account || !set.service_account_names.includes(name))
      throw invalidRequest(`"${name}" is not managed by this set`);
    if (account.checkout === null) continue;
    if (!may(account.checkout))
      throw invalidRequest(`"${name}" can't be checked in because it wasn't checked out by the caller`);
    if (!out.includes(name)) out.push(name);
  }
  return out;
}

/** A set's settings after a write (Vault's create and update), validated with Vault's texts. */
export function setSettings(
  existing: SetState | undefined,
  body: {
    service_account_names?: string[];
    ttl?: number;
    max_ttl?: number;
    disable_check_in_enforcement?: boolean;
  },
  defaultTtl: number,
): SetState {
  const names = body.service_account_names ?? existing?.service_account_names ?? [];
  if (!existing && names.length === 0) throw invalidRequest('"service_account_names" must be provided');
  const set: SetState = {
    kind: 'set',
    service_account_names: [...new Set(names)],
    ttl: body.ttl ?? existing?.ttl ?? defaultTtl,
    max_ttl: body.max_ttl ?? existing?.max_ttl ?? defaultTtl,
    disable_check_in_enforcement:
      body.disable_check_in_enforcement ?? existing?.disable_check_in_enforcement ?? false,
  };
  if (set.service_account_names.length < 1)
    throw invalidRequest('at least one service account must be configured');
  if (set.max_ttl > 0 && set.max_ttl < set.ttl)
    throw invalidRequest(`max_ttl (${set.max_ttl} seconds) may not be less than ttl (${set.ttl} seconds)`);
  return set;
}

/** A library set as its read answers it (the live read and its history). */
export function directorySetView(set: SetState): z.output<typeof directorySetReadSchema> {
  const { service_account_names, ttl, max_ttl, disable_check_in_enforcement } = set;
  return { service_account_names, ttl, max_ttl, disable_check_in_enforcement };
}
