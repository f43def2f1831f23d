import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import type { CallerContext, RequestOf, ResponseOf } from '@coffer/contracts';
import { drContracts, performanceContracts } from '@coffer/contracts/replication';
import { Caller, Handles } from '@coffer/transport';
import { OperationTokenService, type AttemptBody } from './operation-token.service';
import { PathsFilterService } from './paths-filter.service';
import { ReplicationService } from './replication.service';

const dr = drContracts;
const perf = performanceContracts;

const activation = (b: { token: string; primary_api_addr: string; ca_file: string; ca_path: string }) => ({
  token: b.token,
  primaryApiAddr: b.primary_api_addr,
  caFile: b.ca_file,
  caPath: b.ca_path,
});

/** generate-root's raw status object, as the attempt routes answer it. */
// the body is generate-root's own answer, parsed again by this contract's raw schema
const raw = (body: AttemptBody) => ({ kind: 'raw' as const, status: 200, body: body as never });

/** sys/replication/dr/*. */
@Controller()
export class DrReplicationHandlers {
  constructor(
    private readonly replication: ReplicationService,
    private readonly operationTokens: OperationTokenService,
  ) {}

  @Handles(dr.promote)
  async promote(@Payload() req: RequestOf<typeof dr.promote>): Promise<ResponseOf<typeof dr.promote>> {
    await this.operationTokens.check(req.body.dr_operation_token);
    await this.replication.promote('dr', req.body.primary_cluster_addr, req.body.force);
    // Vault's sample: the three fields at top level and under data
    const done = { progress: 0, required: 0, complete: true };
    return { kind: 'injected', data: done };
  }

  @Handles(dr.updatePrimary)
  async updatePrimary(
    @Payload() req: RequestOf<typeof dr.updatePrimary>,
  ): Promise<ResponseOf<typeof dr.updatePrimary>> {
    await this.operationTokens.check(req.body.dr_operation_token);
    await this.replication.updatePrimary('dr', activation(req.body));
    return {};
  }

  @Handles(dr.operationTokenRead)
  async operationTokenRead(
    @Payload() req: RequestOf<typeof dr.operationTokenRead>,
  ): Promise<ResponseOf<typeof dr.operationTokenRead>> {
    return raw(await this.operationTokens.read(req));
  }

  @Handles(dr.operationTokenStart)
  async operationTokenStart(
    @Payload() req: RequestOf<typeof dr.operationTokenStart>,
  ): Promise<ResponseOf<typeof dr.operationTokenStart>> {
    return raw(await this.operationTokens.start(req, req.body.pgp_key));
  }

  @Handles(dr.operationTokenCancel)
  async operationTokenCancel(
    @Payload() req: RequestOf<typeof dr.operationTokenCancel>,
  ): Promise<ResponseOf<typeof dr.operationTokenCancel>> {
    await this.operationTokens.cancel(req);
    return {};
  }

  @Handles(dr.operationTokenUpdate)
  async operationTokenUpdate(
    @Payload() req: RequestOf<typeof dr.operationTokenUpdate>,
  ): Promise<ResponseOf<typeof dr.operationTokenUpdate>> {
    return raw(await this.operationTokens.update(req, req.body.key, req.body.nonce));
  }

  @Handles(dr.operationTokenDelete)
  async operationTokenDelete(
    @Payload() req: RequestOf<typeof dr.operationTokenDelete>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof dr.operationTokenDelete>> {
    await this.operationTokens.revoke(req, req.body.dr_operation_token, caller);
    return {};
  }

  @Handles(dr.status)
  async status(): Promise<ResponseOf<typeof dr.status>> {
    return { data: await this.replication.status('dr') };
  }

  @Handles(dr.primaryEnable)
  async primaryEnable(
    @Payload() req: RequestOf<typeof dr.primaryEnable>,
  ): Promise<ResponseOf<typeof dr.primaryEnable>> {
    await this.replication.primaryEnable('dr', req.body.primary_cluster_addr);
    return {};
  }

  @Handles(dr.primaryDemote)
  async primaryDemote(): Promise<ResponseOf<typeof dr.primaryDemote>> {
    await this.replication.primaryDemote('dr');
    return {};
  }

  @Handles(dr.primaryDisable)
  async primaryDisable(): Promise<ResponseOf<typeof dr.primaryDisable>> {
    await this.replication.primaryDisable('dr');
    return {};
  }

  @Handles(dr.secondaryToken)
  async secondaryToken(
    @Payload() req: RequestOf<typeof dr.secondaryToken>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof dr.secondaryToken>> {
    return { kind: 'raw', status: 200, body: await this.replication.secondaryToken('dr', req.body, caller) };
  }

  @Handles(dr.revokeSecondary)
  async revokeSecondary(
    @Payload() req: RequestOf<typeof dr.revokeSecondary>,
  ): Promise<ResponseOf<typeof dr.revokeSecondary>> {
    await this.replication.revokeSecondary('dr', req.body.id);
    return {};
  }

  @Handles(dr.generatePublicKey)
  async generatePublicKey(): Promise<ResponseOf<typeof dr.generatePublicKey>> {
    return { data: await this.replication.generatePublicKey('dr') };
  }

  @Handles(dr.secondaryEnable)
  async secondaryEnable(
    @Payload() req: RequestOf<typeof dr.secondaryEnable>,
  ): Promise<ResponseOf<typeof dr.secondaryEnable>> {
    await this.replication.secondaryEnable('dr', activation(req.body));
    return {};
  }

  @Handles(dr.secondaryDisable)
  async secondaryDisable(): Promise<ResponseOf<typeof dr.secondaryDisable>> {
    await this.replication.secondaryDisable('dr');
    return {};
  }
}

/** sys/replication/performance/*. */
@Controller()
export class PerformanceReplicationHandlers {
  constructor(
    private readonly replication: ReplicationService,
    private readonly filters: PathsFilterService,
  ) {}

  @Handles(perf.pathsFilterWrite)
  async pathsFilterWrite(
    @Payload() req: RequestOf<typeof perf.pathsFilterWrite>,
  ): Promise<ResponseOf<typeof perf.pathsFilterWrite>> {
    await this.filters.write(req.params.id, req.body.mode, req.body.paths);
    return {};
  }

  @Handles(perf.pathsFilterRead)
  async pathsFilterRead(
    @Payload() req: RequestOf<typeof perf.pathsFilterRead>,
  ): Promise<ResponseOf<typeof perf.pathsFilterRead>> {
    return { data: await this.filters.read(req.params.id) };
  }

  @Handles(perf.pathsFilterDelete)
  async pathsFilterDelete(
    @Payload() req: RequestOf<typeof perf.pathsFilterDelete>,
  ): Promise<ResponseOf<typeof perf.pathsFilterDelete>> {
    await this.filters.delete(req.params.id);
    return {};
  }

  @Handles(perf.mountFilterWrite)
  async mountFilterWrite(
    @Payload() req: RequestOf<typeof perf.mountFilterWrite>,
  ): Promise<ResponseOf<typeof perf.mountFilterWrite>> {
    await this.filters.writeMountFilter(req.params.id, req.body.mode, req.body.paths);
    return {};
  }

  @Handles(perf.mountFilterRead)
  async mountFilterRead(
    @Payload() req: RequestOf<typeof perf.mountFilterRead>,
  ): Promise<ResponseOf<typeof perf.mountFilterRead>> {
    return { data: await this.filters.readMountFilter(req.params.id) };
  }

  @Handles(perf.mountFilterDelete)
  async mountFilterDelete(
    @Payload() req: RequestOf<typeof perf.mountFilterDelete>,
  ): Promise<ResponseOf<typeof perf.mountFilterDelete>> {
    await this.filters.delete(req.params.id);
    return {};
  }

  @Handles(perf.primaryDynamicFilter)
  async primaryDynamicFilter(
    @Payload() req: RequestOf<typeof perf.primaryDynamicFilter>,
  ): Promise<ResponseOf<typeof perf.primaryDynamicFilter>> {
    return { data: await this.filters.primaryDynamic(req.params.id) };
  }

  @Handles(perf.secondaryDynamicFilter)
  async secondaryDynamicFilter(
    @Payload() req: RequestOf<typeof perf.secondaryDynamicFilter>,
  ): Promise<ResponseOf<typeof perf.secondaryDynamicFilter>> {
    return { data: await this.filters.secondaryDynamic(req.params.id) };
  }

  @Handles(perf.status)
  async status(): Promise<ResponseOf<typeof perf.status>> {
    return { data: await this.replication.status('performance') };
  }

  @Handles(perf.primaryEnable)
  async primaryEnable(
    @Payload() req: RequestOf<typeof perf.primaryEnable>,
  ): Promise<ResponseOf<typeof perf.primaryEnable>> {
    await this.replication.primaryEnable('performance', req.body.primary_cluster_addr);
    return {};
  }

  @Handles(perf.primaryDemote)
  async primaryDemote(): Promise<ResponseOf<typeof perf.primaryDemote>> {
    await this.replication.primaryDemote('performance');
    return {};
  }

  @Handles(perf.primaryDisable)
  async primaryDisable(): Promise<ResponseOf<typeof perf.primaryDisable>> {
    await this.replication.primaryDisable('performance');
    return {};
  }

  @Handles(perf.secondaryToken)
  async secondaryToken(
    @Payload() req: RequestOf<typeof perf.secondaryToken>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof perf.secondaryToken>> {
    return {
      kind: 'raw',
      status: 200,
      body: await this.replication.secondaryToken('performance', req.body, caller),
    };
  }

  @Handles(perf.revokeSecondary)
  async revokeSecondary(
    @Payload() req: RequestOf<typeof perf.revokeSecondary>,
  ): Promise<ResponseOf<typeof perf.revokeSecondary>> {
    await this.replication.revokeSecondary('performance', req.body.id);
    return {};
  }

  @Handles(perf.generatePublicKey)
  async generatePublicKey(): Promise<ResponseOf<typeof perf.generatePublicKey>> {
    return { data: await this.replication.generatePublicKey('performance') };
  }

  @Handles(perf.secondaryEnable)
  async secondaryEnable(
    @Payload() req: RequestOf<typeof perf.secondaryEnable>,
  ): Promise<ResponseOf<typeof perf.secondaryEnable>> {
    await this.replication.secondaryEnable('performance', activation(req.body));
    return {};
  }

  @Handles(perf.secondaryDisable)
  async secondaryDisable(): Promise<ResponseOf<typeof perf.secondaryDisable>> {
    await this.replication.secondaryDisable('performance');
    return {};
  }

  @Handles(perf.promote)
  async promote(@Payload() req: RequestOf<typeof perf.promote>): Promise<ResponseOf<typeof perf.promote>> {
    await this.replication.promote('performance', req.body.primary_cluster_addr, req.body.force);
    return {};
  }

  @Handles(perf.updatePrimary)
  async updatePrimary(
    @Payload() req: RequestOf<typeof perf.updatePrimary>,
  ): Promise<ResponseOf<typeof perf.updatePrimary>> {
    await this.replication.updatePrimary('performance', activation(req.body));
    return {};
  }
}
