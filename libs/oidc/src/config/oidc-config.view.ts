import type { AssignmentState, ClientState, KeyState, ProviderState, ScopeState } from './oidc-config.state';

/**
 * What the live reads of the OIDC provider's objects answer (Vault's fields), one function per
 * kind, shared by the reads, their LISTs' key_info and the history at an instant.
 */

export function keyView(key: KeyState) {
  return {
    rotation_period: key.rotationPeriod,
    verification_ttl: key.verificationTtl,
    algorithm: key.algorithm,
    allowed_client_ids: key.allowedClientIds,
  };
}

/** `issuer`: effectiveIssuer of the provider (its explicit issuer, or the cluster's api_addr). */
export function providerView(provider: ProviderState, issuer: string) {
  return {
    issuer,
    allowed_client_ids: provider.allowedClientIds,
    scopes_supported: provider.scopesSupported,
  };
}

export function scopeView(scope: ScopeState) {
  return { template: scope.template, description: scope.description };
}

/** The client as its read answers it, its secret included (the history leaves it out). */
export function clientView(client: ClientState) {
  return {
    redirect_uris: client.redirectUris,
    assignments: client.assignments,
    key: client.key,
    id_token_ttl: client.idTokenTtl,
    access_token_ttl: client.accessTokenTtl,
    client_id: client.clientId,
    client_secret: client.clientSecret,
    client_type: 'confidential',
  };
}

export function assignmentView(assignment: AssignmentState) {
  return { entity_ids: assignment.entityIds, group_ids: assignment.groupIds };
}
