import { Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DomainError, type RequestOf, type ResponseOf, type sysContracts } from '@coffer/contracts';
import { PROMETHEUS_CONTENT_TYPE, prometheusText, vaultMetricsJson } from '@coffer/telemetry';
import { LeaseRepository } from '../leases/lease.repository';
import { SealService } from '../seal/seal.service';
import { setCoreSysMetricSource } from './core-sys.metrics';

type MetricsContract = typeof sysContracts.metrics;

/**
 * sys/metrics: the answering process's registry (in cluster mode this core-sys replica; in dev
 * mode the whole server), in Vault's JSON or, with format=prometheus, the Prometheus text
 * format. Also feeds the seal and lease gauges while this core-sys runs.
 */
@Injectable()
export class MetricsService implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    private readonly seal: SealService,
    private readonly leases: LeaseRepository,
  ) {}

  onApplicationBootstrap(): void {
    setCoreSysMetricSource({
      sealState: () => this.seal.state(),
      leaseCounts: () => this.leases.counts(),
    });
  }

  onApplicationShutdown(): void {
    setCoreSysMetricSource(undefined);
  }

  async read(req: RequestOf<MetricsContract>): Promise<ResponseOf<MetricsContract>> {
    const format = req.query.format ?? '';
    if (format === 'prometheus') {
      return { kind: 'raw', status: 200, body: await prometheusText(), contentType: PROMETHEUS_CONTENT_TYPE };
    }
    // Vault: metricsutil.ResponseForFormat
    if (format !== '' && format !== 'json') {
      throw new DomainError('invalid_request', `metric response format "${format}" unknown`);
    }
    return { kind: 'raw', status: 200, body: await vaultMetricsJson() };
  }
}
