import { Inject, Injectable } from '@nestjs/common';
import { coreSealState } from '@coffer/contracts';
import { CachedValue, type Transport } from '@coffer/transport';
import type { z } from 'zod';
import {
  CORE_LOOKUP_TIMEOUT_MS,
  GATEWAY_OPTIONS,
  GATEWAY_TRANSPORT,
  resolveCacheOptions,
  type GatewayOptions,
} from '../gateway.options';

export type SealState = z.output<typeof coreSealState.response>;

/** core-sys's seal state, cached and re-read on the "seal" invalidation broadcast. */
@Injectable()
export class SealStateService {
  private readonly state: CachedValue<SealState>;

  constructor(
    @Inject(GATEWAY_TRANSPORT) transport: Transport,
    @Inject(GATEWAY_OPTIONS) options: GatewayOptions,
  ) {
    this.state = new CachedValue(
      () => transport.request(coreSealState, {}, { timeoutMs: CORE_LOOKUP_TIMEOUT_MS }),
      resolveCacheOptions(options.cache).sealMaxAgeMs,
    );
  }

  /** True when requests other than the allowSealed routes must answer 503 "Vault is sealed". */
  async isSealed(): Promise<boolean> {
    const state = await this.state.get();
    return !state.initialized || state.sealed;
  }

  invalidate(): void {
    this.state.invalidate();
  }
}
