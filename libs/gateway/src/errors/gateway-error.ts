/**
 * Failures that only exist at the HTTP layer and have no DomainError code: they are rendered by
 * the same error table (error-table.ts).
 */
export const GATEWAY_ERROR_KINDS = ['missing_token', 'unsupported_media_type', 'method_not_allowed'] as const;
export type GatewayErrorKind = (typeof GATEWAY_ERROR_KINDS)[number];

export class GatewayError extends Error {
  constructor(
    readonly kind: GatewayErrorKind,
    message = '',
  ) {
    super(message);
    this.name = 'GatewayError';
  }
}
