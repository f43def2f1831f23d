import { z } from 'zod';

/** ACL policy events, one stream per policy name: `policy/acl/<name>`. */
export const policyStream = (name: string): string => `policy/acl/${name}`;

export const policyWrittenV1 = z.object({ name: z.string(), policy: z.string() });
export const policyDeletedV1 = z.object({ name: z.string() });

export const POLICY_EVENT_SCHEMAS = {
  PolicyWritten: policyWrittenV1,
  PolicyDeleted: policyDeletedV1,
} as const;
