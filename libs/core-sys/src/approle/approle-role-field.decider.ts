import {
  approleRoleBodySchema,
  formatDuration,
  invalidRequest,
  notFound,
  type ApproleRoleBody,
  type ApproleRoleData,
} from '@coffer/contracts';

type RoleBodyPart = Partial<ApproleRoleBody>;
import { roleView, type RoleState } from './approle.decider';

/**
 * One field of a role behind its own route (Vault's path_role.go per-field paths): read answers
 * that field, update needs it ("missing <field>") and changes only it, delete puts its default back.
 */
interface RoleField {
  /** body keys the update reads, the first one named in "missing ..." */
  keys: readonly (keyof ApproleRoleBody)[];
  read: (view: ApproleRoleData) => Partial<ApproleRoleData>;
  /** the body that puts the field's default back */
  reset: RoleBodyPart;
  /** Vault's own refusal of the update (checked before the role write's rules), if any */
  refuse?: (current: RoleState, update: RoleBodyPart, maxLeaseTtl: number) => string | undefined;
  /** the name in "missing ..." when not the first key */
  missing?: string;
  /** Vault's CIDR routes change nothing (204) when their field is absent, instead of "missing" */
  absentIsNoop?: boolean;
}

const ttlAboveMax = (ttl: number, max: number) => max > 0 && ttl > max;

const ROLE_FIELDS: Readonly<Record<string, RoleField>> = {
  policies: {
    keys: ['token_policies', 'policies'],
    read: (v) => ({ token_policies: v.token_policies, ...(v.policies ? { policies: v.policies } : {}) }),
    reset: { token_policies: [] },
  },
  'secret-id-num-uses': {
    keys: ['secret_id_num_uses'],
    read: (v) => ({ secret_id_num_uses: v.secret_id_num_uses }),
    reset: { secret_id_num_uses: 0 },
  },
  'secret-id-ttl': {
    keys: ['secret_id_ttl'],
    read: (v) => ({ secret_id_ttl: v.secret_id_ttl }),
    reset: { secret_id_ttl: 0 },
  },
  'bind-secret-id': {
    keys: ['bind_secret_id'],
    read: (v) => ({ bind_secret_id: v.bind_secret_id }),
    reset: { bind_secret_id: true },
  },
  'secret-id-bound-cidrs': {
    keys: ['secret_id_bound_cidrs'],
    read: (v) => ({ secret_id_bound_cidrs: v.secret_id_bound_cidrs }),
    reset: { secret_id_bound_cidrs: [] },
    absentIsNoop: true,
    refuse: (_current, update) =>
      update.secret_id_bound_cidrs?.length === 0 ? 'missing bound_cidr_list' : undefined,
  },
  'token-bound-cidrs': {
    keys: ['token_bound_cidrs'],
    read: (v) => ({ token_bound_cidrs: v.token_bound_cidrs }),
    reset: { token_bound_cidrs: [] },
    absentIsNoop: true,
  },
  period: {
    keys: ['token_period', 'period'],
    missing: 'period',
    read: (v) => ({ token_period: v.token_period, ...(v.period ? { period: v.period } : {}) }),
    reset: { token_period: 0 },
    // Vault names the deprecated period field here (0s when only token_period was given)
    refuse: (_current, update, maxLeaseTtl) =>
      (update.token_period ?? update.period ?? 0) > maxLeaseTtl
        ? `period of ${JSON.stringify(formatDuration(update.period ?? 0))} is greater than the backend's maximum lease TTL of ${JSON.stringify(formatDuration(maxLeaseTtl))}`
        : undefined,
  },
  'token-num-uses': {
    keys: ['token_num_uses'],
    read: (v) => ({ token_num_uses: v.token_num_uses }),
    reset: { token_num_uses: 0 },
  },
  'token-ttl': {
    keys: ['token_ttl'],
    read: (v) => ({ token_ttl: v.token_ttl }),
    reset: { token_ttl: 0 },
    refuse: (current, update) =>
      ttlAboveMax(update.token_ttl ?? 0, current.settings.tokenMaxTtl)
        ? 'token_ttl should not be greater than token_max_ttl'
        : undefined,
  },
  'token-max-ttl': {
    keys: ['token_max_ttl'],
    read: (v) => ({ token_max_ttl: v.token_max_ttl }),
    reset: { token_max_ttl: 0 },
    refuse: (current, update) =>
      ttlAboveMax(current.settings.tokenTtl, update.token_max_ttl ?? 0)
        ? 'token_max_ttl should be greater than or equal to token_ttl'
        : undefined,
  },
};

/** The field a route serves, from the last segment of its path (role/<name>/<field>). */
export function roleFieldOf(path: string): RoleField {
  const field = ROLE_FIELDS[path.slice(path.lastIndexOf('/') + 1)];
  if (!field) throw notFound();
  return field;
}

export function roleFieldView(field: RoleField, role: RoleState): Partial<ApproleRoleData> {
  return field.read(roleView(role));
}

/** A role write's body naming only `part` (every other field absent, so unchanged). */
export function roleBodyOf(part: RoleBodyPart): ApproleRoleBody {
  return { ...approleRoleBodySchema.parse({}), ...part };
}

/**
 * The update's body: only the field's keys, which must be there (or, for the CIDR routes, nothing
 * changes: undefined), and which Vault must not refuse.
 */
export function roleFieldUpdate(
  field: RoleField,
  current: RoleState,
  body: ApproleRoleBody,
  maxLeaseTtl: number,
): RoleBodyPart | undefined {
  const only: RoleBodyPart = {};
  for (const key of field.keys) {
    if (body[key] !== undefined) Object.assign(only, { [key]: body[key] });
  }
  if (Object.keys(only).length === 0) {
    if (field.absentIsNoop) return undefined;
    throw invalidRequest(`missing ${field.missing ?? field.keys[0] ?? ''}`);
  }
  const refusal = field.refuse?.(current, only, maxLeaseTtl);
  if (refusal !== undefined) throw invalidRequest(refusal);
  return only;
}
