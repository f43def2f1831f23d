import { createSign, createVerify } from 'node:crypto';
import { existsSync } from 'node:fs';
import { LowPriorityKeygen } from './low-priority-keygen';

describe('LowPriorityKeygen', () => {
  const keygen = new LowPriorityKeygen();
  afterAll(() => keygen.close());

  it('generates RSA keys of the asked size on its thread, usable by this one', async () => {
    const [a, b] = await Promise.all([keygen.generateRsa(2048), keygen.generateRsa(2048)]);
    expect(a.asymmetricKeyType).toBe('rsa');
    expect(a.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(
      a.export({ format: 'der', type: 'pkcs8' }).equals(b.export({ format: 'der', type: 'pkcs8' })),
    ).toBe(false);
    const signature = createSign('sha256').update('coffer').sign(a);
    expect(createVerify('sha256').update('coffer').verify(a, signature)).toBe(true);
  });

  it('runs at the lowest priority the kernel has: nice 19, and SCHED_IDLE where chrt exists', async () => {
    const scheduling = await keygen.scheduling();
    expect(scheduling.nice).toBe(19);
    const chrt = ['/usr/bin/chrt', '/bin/chrt'].some((p) => existsSync(p));
    expect(scheduling.policy).toBe(chrt ? 5 : 0);
  });

  it('rejects an impossible size and goes on serving', async () => {
    await expect(keygen.generateRsa(1)).rejects.toThrow(/RSA key generation failed/);
    expect((await keygen.generateRsa(2048)).asymmetricKeyDetails?.modulusLength).toBe(2048);
  });

  it('starts a new thread after close', async () => {
    await keygen.close();
    expect((await keygen.generateRsa(2048)).asymmetricKeyType).toBe('rsa');
  });
});
