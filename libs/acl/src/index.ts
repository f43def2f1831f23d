export { CAP, CAPABILITY_NAMES, capabilityList, isCapability, type Capability } from './capabilities';
export { PolicyParseError } from './acl-errors';
export {
  DEFAULT_POLICY_NAME,
  ROOT_POLICY_NAME,
  type ParameterMap,
  type PathPermissions,
  type Policy,
  type PolicyPath,
} from './policy.types';
export { parsePolicy, type ParsePolicyOptions } from './policy.parser';
export {
  Acl,
  compileAcl,
  type AclDeniedReason,
  type AclRequest,
  type AclResult,
  type CompileAclOptions,
  type ResultantAcl,
  type ResultantAclPath,
} from './acl';
export { comparePriority, patternInfo, type PatternInfo, type PatternKind } from './pattern';
export { populateTemplate, checkTemplate } from './templating';
export { globbedStringsMatch } from './parameters';
export { DEFAULT_POLICY, RESPONSE_WRAPPING_POLICY, RESPONSE_WRAPPING_POLICY_NAME } from './default-policy';
export type { MergedPermissions } from './rule-index';
export { rebasePath, rebasePolicy } from './policy-rebase';
