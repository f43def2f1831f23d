import { Injectable } from '@nestjs/common';
import { invalidRequest } from '@coffer/contracts';
import { NamespaceRepository } from '../namespaces/namespace.repository';
import { namespaceSuffixOf } from './token-crypto';

/**
 * What a token's or accessor's ".<namespace id>" suffix says (Vault's SplitIDFromString +
 * NamespaceByID): tokens of a non-root namespace carry its id, so a token store can refuse a
 * token or accessor of another namespace before it looks it up, as Vault routes a lookup by it.
 */
@Injectable()
export class TokenNamespaces {
  constructor(private readonly namespaces: NamespaceRepository) {}

  /** The suffix for a token issued in `namespace` (undefined in the root). */
  async suffixFor(namespace: string | undefined): Promise<string | undefined> {
    if (!namespace) return undefined;
    const id = await this.namespaces.idOf(namespace);
    // the namespace went away while the request ran
    if (id === undefined) throw invalidRequest('no namespace');
    return id;
  }

  /** The id of the namespace at `path` ("root" for the root, as Vault names it). */
  async idOfPath(path: string): Promise<string | undefined> {
    return path === '' ? 'root' : this.namespaces.idOf(path);
  }

  /**
   * The namespace path the suffix of `id` names: undefined without a suffix (a root token, or
   * one issued before tokens carried suffixes: its stored namespace decides), null when the
   * suffix names no namespace (deleted, or made up).
   */
  async claimed(id: string): Promise<string | null | undefined> {
    const suffix = namespaceSuffixOf(id);
    if (suffix === undefined) return undefined;
    return (await this.namespaces.pathOf(suffix)) ?? null;
  }

  /**
   * Whether a token store of `storeNamespace` may look `id` up: its suffix must name that
   * namespace or one below it. Without a suffix the stored namespace is checked after the lookup.
   */
  async admits(id: string, storeNamespace: string | undefined): Promise<boolean> {
    const claimed = await this.claimed(id);
    if (claimed === undefined) return true;
    return claimed !== null && claimed.startsWith(storeNamespace ?? '');
  }
}
