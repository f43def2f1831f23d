import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  auditContracts,
  auditHmac,
  DomainError,
  invalidation,
  invalidRequest,
  type ResponseOf,
  type RequestOf,
} from '@coffer/contracts';
import { retryOnConflict, type ServiceRuntime } from '@coffer/event-store';
import { SERVICE_RUNTIME } from '../core-sys.di';
import { decide, foldAudit, normaliseAuditPath, type AuditCommand, type AuditState } from './audit.decider';
import { fileDeviceRefusal } from './audit-file-check';
import { AuditEventLog } from './audit.projection';
import { AuditRepository } from './audit.repository';

type Req<K extends keyof typeof auditContracts> = RequestOf<(typeof auditContracts)[K]>;
type Res<K extends keyof typeof auditContracts> = ResponseOf<(typeof auditContracts)[K]>;

/** Audit devices and audited request headers: sys/audit*, sys/config/auditing/*. */
@Injectable()
export class AuditService {
  constructor(
    @Inject(SERVICE_RUNTIME) private readonly runtime: ServiceRuntime,
    private readonly repo: AuditRepository,
    private readonly log: AuditEventLog,
  ) {}

  async list(): Promise<Res<'list'>> {
    const data: Record<
      string,
      { type: string; description: string; options: Record<string, string>; local: boolean; path: string }
    > = {};
    for (const row of await this.repo.devices()) {
      data[row.path] = {
        type: row.type,
        description: row.description,
        options: row.options,
        local: row.local,
        path: row.path,
      };
    }
    return { data };
  }

  async enable(req: Req<'enable'>): Promise<Res<'enable'>> {
    const { type, description, options, local } = req.body;
    const path = normaliseAuditPath(req.params.path);
    // a fresh random salt per device: Vault's salt is a UUID too
    const salt = randomUUID();
    await this.change({
      kind: 'enable',
      path,
      type,
      description,
      options: options ?? {},
      local,
      salt,
      now: this.now(),
    });
    return {};
  }

  async disable(req: Req<'disable'>): Promise<Res<'disable'>> {
    await this.change({ kind: 'disable', path: normaliseAuditPath(req.params.path), now: this.now() });
    return {};
  }

  async hash(req: Req<'hash'>): Promise<Res<'hash'>> {
    const path = normaliseAuditPath(req.params.path);
    const device = (await this.state()).devices[path];
    if (!device) throw invalidRequest(`unknown audit backend ${path}`);
    return { data: { hash: auditHmac(device.salt, req.body.input) } };
  }

  async headers(): Promise<Res<'headersList'>> {
    const headers: Record<string, { hmac: boolean }> = {};
    for (const row of await this.repo.headers()) headers[row.name] = { hmac: row.hmac };
    return { data: { headers } };
  }

  async header(req: Req<'headerRead'>): Promise<Res<'headerRead'>> {
    const name = req.params.header.toLowerCase();
    const found = (await this.repo.headers()).find((row) => row.name === name);
    // Vault answers an empty 200 body for a header it does not audit
    return found ? { data: { [name]: { hmac: found.hmac } } } : { data: {} };
  }

  async setHeader(req: Req<'headerWrite'>): Promise<Res<'headerWrite'>> {
    await this.change({ kind: 'setHeader', name: req.params.header.toLowerCase(), hmac: req.body.hmac });
    return {};
  }

  async removeHeader(req: Req<'headerDelete'>): Promise<Res<'headerDelete'>> {
    await this.change({ kind: 'removeHeader', name: req.params.header.toLowerCase() });
    return {};
  }

  /** The devices with their salts and the audited headers, for the gateway's audit pipeline. */
  async config(): Promise<{
    devices: { path: string; type: string; options: Record<string, string>; salt: string }[];
    headers: { name: string; hmac: boolean }[];
  }> {
    const state = await this.state();
    return {
      devices: Object.values(state.devices).map(({ path, type, options, salt }) => ({
        path,
        type,
        options,
        salt,
      })),
      headers: Object.entries(state.headers).map(([name, { hmac }]) => ({ name, hmac })),
    };
  }

  private async change(command: AuditCommand): Promise<void> {
    const changed = await retryOnConflict(async () => {
      const events = await this.log.read(undefined);
      const outcome = decide(foldAudit(events), command);
      if (outcome instanceof DomainError) throw outcome;
      if (outcome.length === 0) return false;
      // the device's factory runs after the table's checks, as in Vault's enableAudit
      if (command.kind === 'enable' && command.type === 'file') {
        const refusal = await fileDeviceRefusal(command.options);
        if (refusal) throw refusal;
      }
      await this.log.append(undefined, events.length, outcome);
      return true;
    });
    // every gateway replica reloads its devices before the writer gets its answer
    if (changed) await this.runtime.transport.publish(invalidation, { kind: 'audit', keys: [] });
  }

  private async state(): Promise<AuditState> {
    if (this.runtime.cipher.sealed) throw new DomainError('sealed', 'Vault is sealed');
    return foldAudit(await this.log.read(undefined));
  }

  private now(): number {
    return this.runtime.clock().getTime();
  }
}
