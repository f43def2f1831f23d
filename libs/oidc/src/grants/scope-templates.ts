import { Injectable } from '@nestjs/common';
import { OidcResources } from '../config/oidc-resources';

/** The `namespace` claim: Vault puts the namespace id, "root" for the root namespace. */
export const namespaceClaim = (namespace: string): string =>
  namespace === '' ? 'root' : namespace.replace(/\/$/, '');

/** The templates of scopes, by name; a scope deleted since is simply ignored (OIDC Core 3.1.2.1). */
@Injectable()
export class ScopeTemplates {
  constructor(private readonly resources: OidcResources) {}

  async of(namespace: string, scopes: readonly string[]): Promise<{ scope: string; template: string }[]> {
    const found = await Promise.all(scopes.map((scope) => this.resources.get(namespace, 'scope', scope)));
    return scopes.flatMap((scope, i) => {
      const state = found[i];
      return state ? [{ scope, template: state.template }] : [];
    });
  }
}
