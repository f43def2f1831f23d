import { z } from 'zod';

/**
 * The caller's context, resolved by the gateway (token -> accessor, policies, entity) and sent to
 * services in transport message headers (never in the payload, never the token itself).
 */
export const callerContextSchema = z.object({
  requestId: z.string(),
  /** the request's path from the root namespace (namespace header + path): recorded with events */
  path: z.string().optional(),
  namespace: z.string(), // "" for root, else "ns1/ns2/"
  clientAddress: z.string(),
  /** absent for unauthenticated routes */
  accessor: z.string().optional(),
  /** stable opaque id for per-token storage (cubbyhole): HMAC of the token id, never the token */
  tokenRef: z.string().optional(),
  policies: z.array(z.string()).default([]),
  entityId: z.string().optional(),
  displayName: z.string().optional(),
  /** true when the caller holds the root policy */
  root: z.boolean().default(false),
  /** true when the ACL grants sudo on the requested path (parameter-level sudo checks) */
  sudo: z.boolean().default(false),
  /** the namespace of the caller's token ("" root): its policies are that namespace's */
  tokenNamespace: z.string().optional(),
  /**
   * policies of the entity's groups in namespaces above the token's, by namespace path
   * (ResolvedToken.externalPolicies): core-sys's own ACL checks (capabilities, listings) apply them
   */
  externalPolicies: z.record(z.string(), z.array(z.string())).optional(),
  /** W3C trace context, propagated gateway -> service */
  traceparent: z.string().optional(),
});
export type CallerContext = z.infer<typeof callerContextSchema>;
export type CallerContextInput = z.input<typeof callerContextSchema>;

/** Header names used on transport messages. */
export const CTX_HEADER = 'coffer-ctx';

export function encodeContext(ctx: CallerContextInput): Record<string, string> {
  return { [CTX_HEADER]: Buffer.from(JSON.stringify(ctx)).toString('base64url') };
}

export function decodeContext(headers: Record<string, string | undefined>): CallerContext | undefined {
  const raw = headers[CTX_HEADER];
  if (!raw) return undefined;
  return callerContextSchema.parse(JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')));
}
