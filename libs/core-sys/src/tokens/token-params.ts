import { invalidRequest } from '@coffer/contracts';
import type { CreateTokenParams } from './token.decider';
import { parseStringList } from './token-policies';
import { weakBool, weakDuration, weakInt, weakString, weakStringMap } from './weak-decode';

/** Parses the body of auth/token/create[-orphan] with Vault's defaults and error texts. */
export function parseCreateParams(body: Record<string, unknown>): CreateTokenParams {
  const type = weakString(body['type'], 'type') ?? '';
  if (type === 'batch') throw invalidRequest('batch tokens are not supported');
  if (type !== '' && type !== 'service') throw invalidRequest("invalid 'token_type' value");

  const numUses = weakInt(body['num_uses'], 'num_uses') ?? 0;
  if (numUses < 0) throw invalidRequest('number of uses cannot be negative');

  const explicitMaxTtl = weakDuration(body['explicit_max_ttl'], 'explicit_max_ttl') ?? 0;
  if (explicitMaxTtl < 0) throw invalidRequest('explicit_max_ttl must be positive');

  const period = weakDuration(body['period'], 'period') ?? 0;
  if (period < 0) throw invalidRequest('period must be positive');

  let ttl = weakDuration(body['ttl'], 'ttl');
  if (ttl !== undefined && ttl < 0) throw invalidRequest('ttl must be positive');
  if (ttl === undefined || body['ttl'] === '') {
    const lease = weakDuration(body['lease'], 'lease');
    if (lease !== undefined && lease < 0) throw invalidRequest('lease must be positive');
    ttl = lease ?? ttl ?? 0;
  }

  if (body['entity_alias'] !== undefined && body['entity_alias'] !== '') {
    throw invalidRequest('entity_alias can only be used with a token role');
  }

  return {
    id: weakString(body['id'], 'id') || undefined,
    policies: parseStringList(body['policies']),
    meta: weakStringMap(body['meta'], 'meta') ?? weakStringMap(body['metadata'], 'metadata') ?? {},
    noParent: weakBool(body['no_parent'], 'no_parent') ?? false,
    noDefaultPolicy: weakBool(body['no_default_policy'], 'no_default_policy') ?? false,
    renewable: weakBool(body['renewable'], 'renewable') ?? true,
    ttl,
    explicitMaxTtl,
    displayName: weakString(body['display_name'], 'display_name') || undefined,
    numUses,
    period,
  };
}

/** The `increment` of the renew routes, seconds (0 = none). */
export function parseIncrement(body: Record<string, unknown>): number {
  return weakDuration(body['increment'], 'increment') ?? 0;
}

/** A required string field of the body, with Vault's "missing ..." text. */
export function requiredField(body: Record<string, unknown>, field: string, missing: string): string {
  const value = weakString(body[field], field);
  if (!value) throw invalidRequest(missing);
  return value;
}
