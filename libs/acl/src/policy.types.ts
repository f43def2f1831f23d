import type { Capability } from './capabilities';

/** Parameter constraints: key (lower-cased) -> values; an empty list means "any value". */
export type ParameterMap = ReadonlyMap<string, readonly unknown[]>;

export interface PathPermissions {
  /** capability bitmap (see CAP); deny alone when the stanza denies */
  bitmap: number;
  /** seconds, 0 = unset */
  minWrappingTtl: number;
  /** seconds, 0 = unset */
  maxWrappingTtl: number;
  /** undefined = not set (any parameter allowed) */
  allowedParameters?: ParameterMap;
  deniedParameters?: ParameterMap;
  requiredParameters: readonly string[];
  subscribeEventTypes: readonly string[];
}

export interface PolicyPath {
  /** the path as written, identity templates unresolved ("/secret/{{identity.entity.id}}/*") */
  path: string;
  /** normalised capability names: ["deny"] alone for a denying stanza */
  capabilities: Capability[];
  permissions: PathPermissions;
  /** true when `path` contains identity templates (resolved when the ACL is compiled) */
  templated: boolean;
  line: number;
  column: number;
}

export interface Policy {
  /** lower-cased, trimmed like Vault */
  name: string;
  raw: string;
  /** namespace path prefixed to every rule ("" for root, else "ns1/") */
  namespace: string;
  paths: PolicyPath[];
  templated: boolean;
}

export const ROOT_POLICY_NAME = 'root';
export const DEFAULT_POLICY_NAME = 'default';
