import { Inject, Injectable } from '@nestjs/common';
import { invalidRequest, type RequestOf, type ResponseOf } from '@coffer/contracts';
import type { oidcContracts } from '@coffer/contracts/oidc';
import type { ServiceRuntime } from '@coffer/event-store';
import { OIDC_RUNTIME } from '../oidc.di';
import { decideKey, rotateKey } from '../config/oidc-config.decider';
import { DEFAULT_KEY_NAME, type KeyState } from '../config/oidc-config.state';
import { OidcConfigService } from '../config/oidc-config.service';
import { OidcDefaults } from '../config/oidc-defaults.service';
import { decided, OidcResources } from '../config/oidc-resources';
import { generateKeyPair } from './key-material';
import { keyView } from '../config/oidc-config.view';

type C = typeof oidcContracts;

/** identity/oidc/key/*: named signing keys, their rotation by hand and on time. */
@Injectable()
export class OidcKeyService {
  constructor(
    private readonly resources: OidcResources,
    private readonly defaults: OidcDefaults,
    private readonly config: OidcConfigService,
    @Inject(OIDC_RUNTIME) private readonly runtime: Pick<ServiceRuntime, 'clock'>,
  ) {}

  async write(req: RequestOf<C['keyWrite']>): Promise<ResponseOf<C['keyWrite']>> {
    const namespace = await this.ready(req);
    const { name } = req.params;
    const ttls = (await this.resources.repo.all(namespace, 'client'))
      .filter(({ state }) => state.key === name)
      .map(({ state }) => state.idTokenTtl);
    await this.resources.write({ namespace, kind: 'key', name }, (current) => {
      const now = this.runtime.clock().getTime();
      const { state } = decided(decideKey(current, req.body, now, ttls, generateKeyPair, name));
      return {
        events: [{ type: 'OidcKeyWritten', data: { key: state } }],
        result: undefined,
      };
    });
    return {};
  }

  async read(req: RequestOf<C['keyRead']>): Promise<ResponseOf<C['keyRead']>> {
    const key = await this.resources.get(await this.ready(req), 'key', req.params.name);
    if (!key) return { data: null };
    return { data: keyView(key) };
  }

  async list(req: RequestOf<C['keyList']>): Promise<ResponseOf<C['keyList']>> {
    return { data: { keys: await this.resources.repo.names(await this.ready(req), 'key') } };
  }

  async delete(req: RequestOf<C['keyDelete']>): Promise<ResponseOf<C['keyDelete']>> {
    const namespace = await this.ready(req);
    const { name } = req.params;
    if (name === DEFAULT_KEY_NAME)
      throw invalidRequest(`deletion of key ${JSON.stringify(DEFAULT_KEY_NAME)} not allowed`);
    const users = (await this.resources.repo.all(namespace, 'client'))
      .filter(({ state }) => state.key === name)
      .map((c) => c.name);
    if (users.length > 0) {
      throw invalidRequest(
        `unable to delete key ${JSON.stringify(name)} because it is currently referenced by these clients: ${users.join(', ')}`,
      );
    }
    await this.config.deleteResource(namespace, 'key', name);
    return {};
  }

  async rotate(req: RequestOf<C['keyRotate']>): Promise<ResponseOf<C['keyRotate']>> {
    const namespace = await this.ready(req);
    const { name } = req.params;
    await this.resources.write({ namespace, kind: 'key', name }, (current) => {
      if (!current) throw invalidRequest(`no named key found at ${JSON.stringify(name)}`);
      const rotated = this.rotated(current, req.body.verification_ttl);
      return {
        events: [{ type: 'OidcKeyRotated', data: { key: rotated } }],
        result: undefined,
      };
    });
    return {};
  }

  /**
   * Rotates the keys whose time has come. Every replica may run this: each rotation is appended
   * at the version it read, so when two replicas race one append fails, and its retry finds the
   * key no longer due and appends nothing. Answers how many keys this replica rotated.
   */
  async rotateDue(limit = 100): Promise<number> {
    const due = await this.resources.repo.dueKeys(this.runtime.clock().getTime(), limit);
    let rotated = 0;
    for (const { namespace, name } of due) {
      const did = await this.resources.write({ namespace, kind: 'key', name }, (current) => {
        if (!current || current.nextRotationMs > this.runtime.clock().getTime())
          return { events: [], result: false };
        const key = this.rotated(current);
        return {
          events: [{ type: 'OidcKeyRotated' as const, data: { key } }],
          result: true,
        };
      });
      if (did) rotated += 1;
    }
    return rotated;
  }

  private rotated(current: KeyState, verificationTtlOverride?: number): KeyState {
    const now = this.runtime.clock().getTime();
    return rotateKey(current, now, generateKeyPair(current.algorithm), verificationTtlOverride);
  }

  private async ready(req: { mount: { namespace: string } }): Promise<string> {
    await this.defaults.ensure(req.mount.namespace);
    return req.mount.namespace;
  }
}
