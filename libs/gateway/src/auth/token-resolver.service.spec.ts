import { coreTokenResolve, DomainError, type ResolvedToken } from '@coffer/contracts';
import { InProcessTransport } from '@coffer/transport';
import type { GatewayOptions } from '../gateway.options';
import { TokenResolver } from './token-resolver.service';

/**
 * A stand-in for core-sys's resolve: use-limited tokens spend one use per call and are never
 * cacheable; the rest are cacheable. Each call is held until released, so concurrent callers
 * really overlap.
 */
class FakeCore {
  calls = 0;
  private readonly uses = new Map<string, number>();
  private gate: Promise<void> = Promise.resolve();
  private release: () => void = () => undefined;

  constructor(readonly transport: InProcessTransport) {
    transport.serve(coreTokenResolve, 'core-sys', async ({ token }) => {
      this.calls++;
      await this.gate;
      return this.resolve(token);
    });
  }

  limited(token: string, uses: number): void {
    this.uses.set(token, uses);
  }

  hold(): void {
    this.gate = new Promise((resolve) => (this.release = resolve));
  }

  open(): void {
    this.release();
    this.gate = Promise.resolve();
  }

  private resolve(token: string): ResolvedToken {
    const left = this.uses.get(token);
    if (left === 0) throw new DomainError('invalid_token', 'permission denied');
    if (left !== undefined) this.uses.set(token, left - 1);
    return {
      accessor: `acc-${token}`,
      tokenRef: `ref-${token}`,
      policies: ['default'],
      identityPolicies: [],
      entityId: '',
      displayName: 'token',
      expiresAt: 0,
      cacheable: left === undefined,
    };
  }
}

function setup(): { core: FakeCore; tokens: TokenResolver } {
  const transport = new InProcessTransport({ logger: { error: () => undefined, warn: () => undefined } });
  const core = new FakeCore(transport);
  const options: GatewayOptions = {
    transport,
    listeners: { api: { address: '127.0.0.1:0' } },
    routeTableFor: () => undefined,
    serviceFor: () => undefined,
  };
  const tokens = new TokenResolver(transport, options);
  return { core, tokens };
}

/** Lets the transport deliver every pending request before the gate opens. */
async function whenCalled(core: FakeCore, calls: number): Promise<void> {
  const deadline = Date.now() + 2000;
  while (core.calls < calls) {
    if (Date.now() > deadline) throw new Error(`core saw ${core.calls} of ${calls} calls`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('gateway TokenResolver', () => {
  it('caches unlimited tokens', async () => {
    const { core, tokens } = setup();
    for (let i = 0; i < 3; i++) expect((await tokens.resolve('forever')).cacheable).toBe(true);
    expect(core.calls).toBe(1);
  });

  it('asks core-sys on every request with a use-limited token, until it is used up', async () => {
    const { core, tokens } = setup();
    core.limited('twice', 2);
    await tokens.resolve('twice');
    await tokens.resolve('twice');
    await expect(tokens.resolve('twice')).rejects.toMatchObject({ code: 'invalid_token' });
    expect(core.calls).toBe(3);
  });

  it('counts one use per concurrent request, not one per shared resolve', async () => {
    const { core, tokens } = setup();
    core.limited('five', 5);
    core.hold();
    const pending = Promise.allSettled(Array.from({ length: 8 }, () => tokens.resolve('five')));
    // The eight requests share the first resolve while it is held.
    await whenCalled(core, 1);
    core.open();
    const results = await pending;
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(5);
    expect(core.calls).toBe(8);
  });
});
