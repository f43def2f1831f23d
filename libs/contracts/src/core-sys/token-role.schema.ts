import { z } from 'zod';
import { fieldBool, fieldDuration, fieldInt, fieldString, fieldStringList } from './core-sys-fields.schema';

/**
 * auth/token/roles/:name: the token store's roles (Vault's tsRoleEntry). Fields as given:
 * undefined = unchanged on update, Vault's default on create.
 */
export const tokenRoleBodySchema = z.object({
  allowed_policies: fieldStringList(
    'Policies tokens of this role may have, instead of a subset of the caller',
  ),
  disallowed_policies: fieldStringList('Policies tokens of this role may never have'),
  allowed_policies_glob: fieldStringList('Glob patterns of allowed policies'),
  disallowed_policies_glob: fieldStringList('Glob patterns of disallowed policies'),
  orphan: fieldBool('Tokens of this role have no parent'),
  renewable: fieldBool('Tokens of this role may be renewed (default true)'),
  path_suffix: fieldString("Suffix of the tokens' path: auth/token/create/<role>/<suffix>"),
  allowed_entity_aliases: fieldStringList('Entity aliases tokens of this role may be bound to'),
  token_type: fieldString('"service", "batch", "default-service" (default) or "default-batch"'),
  token_period: fieldDuration('Makes tokens of this role periodic with this period'),
  period: fieldDuration('Deprecated alias of token_period'),
  token_explicit_max_ttl: fieldDuration('Hard cap on the lifetime of tokens of this role'),
  explicit_max_ttl: fieldDuration('Deprecated alias of token_explicit_max_ttl'),
  token_bound_cidrs: fieldStringList('CIDR blocks tokens of this role may be used from'),
  bound_cidrs: fieldStringList('Deprecated alias of token_bound_cidrs'),
  token_no_default_policy: fieldBool('Do not add the default policy to tokens of this role'),
  token_num_uses: fieldInt('Maximum number of uses of tokens of this role (0 = unlimited)'),
});
export type TokenRoleBody = z.output<typeof tokenRoleBodySchema>;

const strings = z.array(z.string());

/** A role as Vault's tokenStoreRoleRead answers it (the last three only when set). */
export const tokenRoleData = z.object({
  name: z.string(),
  allowed_policies: strings,
  disallowed_policies: strings,
  allowed_policies_glob: strings,
  disallowed_policies_glob: strings,
  allowed_entity_aliases: strings.nullable(),
  orphan: z.boolean(),
  renewable: z.boolean(),
  path_suffix: z.string(),
  token_type: z.string(),
  token_no_default_policy: z.boolean(),
  period: z.number(),
  token_period: z.number(),
  explicit_max_ttl: z.number(),
  token_explicit_max_ttl: z.number(),
  token_bound_cidrs: strings.optional(),
  bound_cidrs: strings.optional(),
  token_num_uses: z.number().optional(),
});
export type TokenRoleData = z.input<typeof tokenRoleData>;
