import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { coreMountTable, coreTokenResolve, sysContracts } from '@coffer/contracts';
import { SealService } from './seal.service';
import { CoreSysHarness } from '../test-support/core-sys-harness';
import { DEV_SECRET_MOUNT } from '../test-support/dev-harness';

// Start-up, fail-over (lock retry) and teardown of several replicas take a few seconds under load.
jest.setTimeout(30_000);

describe('dev bootstrap', () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'coffer-dev-bootstrap-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('initialises, unseals and mounts secret/ (Postgres + NATS), then re-unseals from the saved key', async () => {
    const h = await CoreSysHarness.start('dev_bootstrap');
    try {
      const seal = h.replica(0).app.get(SealService);
      const first = await seal.devBootstrap({ rootTokenId: 'dev-root', dataDir, mounts: [DEV_SECRET_MOUNT] });
      expect(first.rootToken).toBe('dev-root');
      expect(Buffer.from(first.unsealKey, 'base64')).toHaveLength(32);
      expect(seal.isUnsealed()).toBe(true);
      expect((await readFile(join(dataDir, 'dev-unseal-key'), 'utf8')).trim()).toBe(first.unsealKey);
      expect((await stat(join(dataDir, 'dev-unseal-key'))).mode & 0o777).toBe(0o600);
      expect((await h.client.request(coreTokenResolve, { token: 'dev-root' })).policies).toEqual(['root']);
      const secret = (await h.client.request(coreMountTable, {})).mounts.find((m) => m.path === 'secret/');
      expect(secret).toMatchObject({ type: 'kv', options: { version: '2' } });

      await h.sys(sysContracts.seal, { operation: 'update', path: 'seal' });
      expect(seal.isUnsealed()).toBe(false);
      const again = await seal.devBootstrap({ rootTokenId: 'dev-root', dataDir });
      expect(again).toEqual(first);
      expect(seal.isUnsealed()).toBe(true);

      await h.sys(sysContracts.seal, { operation: 'update', path: 'seal' });
      const fresh = await seal.devBootstrap({ dataDir });
      expect(fresh.rootToken).not.toBe('dev-root');
      expect((await h.client.request(coreTokenResolve, { token: fresh.rootToken })).policies).toEqual([
        'root',
      ]);
    } finally {
      await h.close();
    }
  });
});
