import { invalidRequest } from '@coffer/contracts';
import type { cloudARoleReadSchema } from '@coffer/contracts/cloud-a';
import type { z } from 'zod';
import type { CloudARole } from '../records/cloud-a-record.events';

export interface RequestedRole {
  role_name: string;
  role_id: string;
  scope: string;
}
export interface RequestedGroup {
  group_name: string;
  object_id: string;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

function parseArray(raw: string, what: string): Record<string, unknown>[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw invalidRequest(`error parsing Azure ${what} '${raw}'`);
  }
  if (parsed === null) return [];
  if (
    !Array.isArray(parsed) ||
    parsed.some((item) => item === null || typeof item !== 'object' || Array.isArray(item))
  )
    throw invalidRequest(`error parsing Azure ${what} '${raw}'`);
  return parsed as Record<string, unknown>[];
}

/** cloud_a_roles: a JSON array (as a string) of {role_name or role_id, scope}. */
export function parseRequestedRoles(raw: string): RequestedRole[] {
  if (raw.trim() === '') return [];
  return parseArray(raw, 'roles').map((item) => {
    const role = { role_name: text(item.role_name), role_id: text(item.role_id), scope: text(item.scope) };
    if (role.role_name === '' && role.role_id === '')
      throw invalidRequest('each role needs role_name or role_id');
    if (role.scope === '') throw invalidRequest('each role needs a scope');
    return role;
  });
}

/** cloud_a_groups: a JSON array (as a string) of {group_name or object_id}. */
export function parseRequestedGroups(raw: string): RequestedGroup[] {
  if (raw.trim() === '') return [];
  return parseArray(raw, 'groups').map((item) => {
    const group = { group_name: text(item.group_name), object_id: text(item.object_id) };
    if (group.group_name === '' && group.object_id === '')
      throw invalidRequest('each group needs group_name or object_id');
    return group;
  });
}

/** Vault's check: ttl may not exceed max_ttl when both are set. */
export function checkRoleTtls(ttl: number, maxTtl: number): void {
  if (ttl < 0 || maxTtl < 0) throw invalidRequest('ttl and max_ttl must not be negative');
  if (maxTtl > 0 && ttl > maxTtl) throw invalidRequest('ttl cannot be greater than max_ttl');
}

/** The same role at the same scope once (Vault dedupes by role id and scope). */
export function uniqueAssignments<T extends { role_id: string; scope: string }>(roles: T[]): T[] {
  const seen = new Set<string>();
  return roles.filter((r) => {
    const key = `${r.role_id.toLowerCase()}|${r.scope.toLowerCase()}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export const MISSING_ROLE_DEFINITIONS = 'missing Azure role or group definitions, or Application Object ID';

/** A role as its read answers it (the live read and its history). */
export function cloudARoleView(role: CloudARole): z.output<typeof cloudARoleReadSchema> {
  return {
    cloud_a_roles: role.roles.length > 0 ? role.roles : null,
    cloud_a_groups: role.groups.length > 0 ? role.groups : null,
    application_object_id: role.application_object_id,
    ttl: role.ttl,
    max_ttl: role.max_ttl,
  };
}
