import { Inject, Injectable } from '@nestjs/common';
import {
  DomainError,
  invalidRequest,
  sysContracts,
  type CallerContext,
  type MountListingData,
  type ResponseOf,
} from '@coffer/contracts';
import { AclService } from '../capabilities/acl.service';
import { SealService } from '../seal/seal.service';
import { isAuthPath, namespaceOf, type MountRecord } from './mount.model';
import { listingKey, mountInfo, mountListing, tuneInfo } from './mount.view';
import { authRoutingPath, matchingMount, sanitizeMountPath } from './mounts.decider';
import type { MountKind } from './mounts.service';
import { MountsRepository } from './mounts.repository';

/** sys/mounts and sys/auth answer the same shapes; typed with the sys/mounts contracts. */
type ListingResponse = ResponseOf<typeof sysContracts.mountsList>;
type ReadResponse = ResponseOf<typeof sysContracts.mountRead>;
type TuneReadResponse = ResponseOf<typeof sysContracts.mountTuneRead>;

/** Read views of the mount table: sys/mounts, sys/auth, their tune reads and sys/internal/ui/mounts. */
@Injectable()
export class MountsViewService {
  constructor(
    private readonly repo: MountsRepository,
    private readonly seal: SealService,
    @Inject(AclService) private readonly acls: Pick<AclService, 'forCaller'>,
  ) {}

  async #mounts(namespace: string): Promise<MountRecord[]> {
    this.seal.assertUnsealed();
    return (await this.repo.snapshot()).mounts.filter((m) => namespaceOf(m) === namespace);
  }

  /** GET sys/mounts or sys/auth (sys injector: the map at top level and under data). */
  async list(kind: MountKind, namespace = ''): Promise<ListingResponse> {
    return { kind: 'injected', data: mountListing(await this.#mounts(namespace), kind === 'auth') };
  }

  /** GET sys/mounts/:path or sys/auth/:path. */
  async read(kind: MountKind, path: string, namespace = ''): Promise<ReadResponse> {
    const mounts = (await this.#mounts(namespace)).filter((m) => isAuthPath(m.path) === (kind === 'auth'));
    const routing = kind === 'auth' ? authRoutingPath(path) : sanitizeMountPath(path);
    const mount = matchingMount(mounts, routing);
    if (!mount) {
      const shown = sanitizeMountPath(path);
      throw invalidRequest(
        kind === 'auth' ? `No auth engine at ${shown}` : `No secret engine mount at ${shown}`,
      );
    }
    return { kind: 'injected', data: mountInfo(mount) };
  }

  /** GET .../tune: the effective TTLs in seconds. */
  async tuneRead(kind: MountKind, path: string, namespace = ''): Promise<TuneReadResponse> {
    const routing = kind === 'auth' ? authRoutingPath(path) : sanitizeMountPath(path);
    const mount = matchingMount(await this.#mounts(namespace), routing);
    if (!mount) throw invalidRequest(`sys: cannot fetch sysview for path ${JSON.stringify(routing)}`);
    return { kind: 'injected', data: tuneInfo(mount) };
  }

  /** GET sys/internal/ui/mounts: the mounts the caller can reach anything under. */
  async uiList(caller: CallerContext): Promise<ResponseOf<typeof sysContracts.uiMounts>> {
    const mounts = await this.#mounts(caller.namespace);
    const acl = await this.acls.forCaller(caller);
    const secret: MountListingData = {};
    const auth: MountListingData = {};
    for (const m of mounts) {
      if (!acl.hasMountAccess(m.path)) continue;
      (isAuthPath(m.path) ? auth : secret)[listingKey(m)] = mountInfo(m);
    }
    return { data: { secret, auth } };
  }

  /**
   * GET sys/internal/ui/mounts/:path: the mount serving a path (the Vault CLI's kv helper reads
   * options.version here). Unknown mounts and mounts without access answer the same 403, so the
   * route cannot be used to discover mounts.
   */
  async uiRead(caller: CallerContext, path: string): Promise<ResponseOf<typeof sysContracts.uiMount>> {
    const routing = sanitizeMountPath(path);
    const denied = new DomainError(
      'permission_denied',
      `preflight capability check returned 403, please ensure client's policies grant access to path ${JSON.stringify(routing)}`,
    );
    const mount = matchingMount(await this.#mounts(caller.namespace), routing);
    if (!mount) throw denied;
    const acl = await this.acls.forCaller(caller);
    if (!acl.hasMountAccess(mount.path)) throw denied;
    return { data: { ...mountInfo(mount), path: listingKey(mount) } };
  }
}
