import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { coreAuditConfig, DomainError, type AuditedHeader } from '@coffer/contracts';
import { CachedValue, type Transport } from '@coffer/transport';
import type { GatewayLogger } from '../gateway.logger';
import {
  CORE_LOOKUP_TIMEOUT_MS,
  DEFAULT_AUDIT_TIMEOUT_MS,
  GATEWAY_LOGGER,
  GATEWAY_OPTIONS,
  GATEWAY_TRANSPORT,
  resolveCacheOptions,
  type GatewayOptions,
} from '../gateway.options';
import {
  deviceFormat,
  requestLine,
  responseLine,
  type AuditedOutcome,
  type AuditedRequest,
  type DeviceFormat,
} from './audit-entry';
import { createAuditSink, type AuditSink } from './audit-sinks';

interface ActiveDevice {
  path: string;
  /** type + options: a device re-enabled with other options gets a new sink */
  identity: string;
  format: DeviceFormat;
  sink: AuditSink;
}

interface AuditSetup {
  devices: ActiveDevice[];
  headers: AuditedHeader[];
}

/** Vault's text when no device logged a request; the client only sees "internal error". */
const NO_DEVICE_LOGGED = 'no audit backend succeeded in logging the request';

/**
 * The gateway's audit broker: core-sys's devices (with their salts) cached until the "audit"
 * invalidation, each device's sink owned by this replica. A request or response is logged when at
 * least one device took its line within the bounded wait; otherwise the request is refused
 * (fail closed) with 500 internal error.
 */
@Injectable()
export class AuditBroker implements OnModuleDestroy {
  private readonly setup: CachedValue<AuditSetup>;
  private readonly timeoutMs: number;
  private sinks = new Map<string, ActiveDevice>();

  constructor(
    @Inject(GATEWAY_TRANSPORT) transport: Transport,
    @Inject(GATEWAY_OPTIONS) options: GatewayOptions,
    @Inject(GATEWAY_LOGGER) private readonly logger: GatewayLogger,
  ) {
    this.timeoutMs = options.auditTimeoutMs ?? DEFAULT_AUDIT_TIMEOUT_MS;
    this.setup = new CachedValue(async () => {
      const config = await transport.request(coreAuditConfig, {}, { timeoutMs: CORE_LOOKUP_TIMEOUT_MS });
      return { devices: this.reconcile(config.devices), headers: config.headers };
    }, resolveCacheOptions(options.cache).maxAgeMs);
  }

  invalidate(): void {
    this.setup.invalidate();
  }

  onModuleDestroy(): void {
    for (const device of this.sinks.values()) device.sink.close();
    this.sinks.clear();
  }

  async logRequest(req: AuditedRequest, error?: string): Promise<void> {
    const { devices, headers } = await this.setup.get();
    await this.broadcast(devices, (format) => requestLine(req, error, headers, format));
  }

  async logResponse(req: AuditedRequest, outcome: AuditedOutcome): Promise<void> {
    const { devices, headers } = await this.setup.get();
    const time = new Date();
    await this.broadcast(devices, (format) => responseLine(req, outcome, headers, format, time));
  }

  private async broadcast(devices: ActiveDevice[], line: (format: DeviceFormat) => string): Promise<void> {
    if (devices.length === 0) return;
    const results = await Promise.allSettled(devices.map((d) => this.bounded(d.sink.write(line(d.format)))));
    let logged = false;
    results.forEach((result, i) => {
      if (result.status === 'fulfilled') logged = true;
      else
        this.logger.error(
          `audit device ${devices[i]?.path ?? '?'} failed to log: ${describe(result.reason)}`,
        );
    });
    if (!logged) {
      throw new DomainError('internal', NO_DEVICE_LOGGED);
    }
  }

  private bounded(work: Promise<void>): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
    });
    return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
  }

  /** Keeps the sinks of unchanged devices, opens new ones, closes the removed. */
  private reconcile(
    configs: { path: string; type: string; options: Record<string, string>; salt: string }[],
  ) {
    const next = new Map<string, ActiveDevice>();
    for (const config of configs) {
      const identity = JSON.stringify([config.type, config.options, config.salt]);
      const kept = this.sinks.get(config.path);
      next.set(
        config.path,
        kept?.identity === identity
          ? kept
          : {
              path: config.path,
              identity,
              format: deviceFormat(config.salt, config.options),
              sink: createAuditSink(config.type, config.options),
            },
      );
    }
    for (const [path, device] of this.sinks) if (next.get(path) !== device) device.sink.close();
    this.sinks = next;
    return [...next.values()];
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
