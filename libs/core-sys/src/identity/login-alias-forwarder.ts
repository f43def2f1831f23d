import { Inject, Injectable } from '@nestjs/common';
import { encodeContext, identityLoginAlias, mountInfoSchema, type MountEntry } from '@coffer/contracts';
import { replicationForward } from '@coffer/contracts/replication';
import type { ServiceRuntime } from '@coffer/event-store';
import { DrStandby } from '@coffer/scheduling';
import { SERVICE_RUNTIME } from '../core-sys.di';

/**
 * On a performance secondary, the entity of a login's alias on a replicated auth mount is the
 * primary's to make (Vault registers it there): the secondary's replication service forwards the
 * registration over the cluster connection, the primary finds or makes the entity and answers its
 * id, and the entity streams back with the primary's identity log. Elsewhere (not a performance
 * secondary, a local auth mount) the cluster makes it itself.
 */
@Injectable()
export class LoginAliasForwarder {
  constructor(
    @Inject(SERVICE_RUNTIME) private readonly runtime: ServiceRuntime,
    private readonly standing: DrStandby,
  ) {}

  /** The primary's entity id for the alias, or undefined when this cluster makes it itself. */
  async entityOnPrimary(mount: MountEntry | undefined, name: string): Promise<string | undefined> {
    if (!mount || mount.local || !(await this.standing.performanceSecondary())) return undefined;
    const { answer } = await this.runtime.transport.request(
      replicationForward,
      {
        subject: identityLoginAlias.subject,
        service: 'core-sys',
        request: {
          operation: 'update',
          mount: mountInfoSchema.parse(mount),
          path: '',
          params: {},
          body: { name },
          query: {},
          headers: {},
        },
        // the login is unauthenticated: the primary runs the registration as nobody in particular
        context: encodeContext({
          requestId: 'login-alias',
          namespace: mount.namespace,
          clientAddress: '',
          policies: [],
        }),
      },
      { write: true },
    );
    return identityLoginAlias.response.parse(answer).data?.entity_id ?? undefined;
  }
}
