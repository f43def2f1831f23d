import { timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { DomainError, weakString } from '@coffer/contracts';
import { definePlugin, pluginOperation, type PluginStorage } from '@coffer/plugin-sdk';
import { barcodePng } from './totp-barcode';
import { base32Decode, counterAt, hotp } from './totp-codes';
import { decideTotpKey, otpauthUrl, totpKeyBody, type TotpKey } from './totp-key';

/**
 * A TOTP secrets engine as an external plugin, with Vault's totp API: keys/:name (generate or
 * import), code/:name (GET generates the current code, POST validates one).
 */

const keyPath = (name: string) => `keys/${name}`;
const bad = (message: string) => new DomainError('invalid_request', message);

async function loadKey(storage: PluginStorage, name: string): Promise<TotpKey | undefined> {
  const raw = await storage.get(keyPath(name));
  return raw === undefined ? undefined : (JSON.parse(raw) as TotpKey);
}

const secretOf = (k: TotpKey): Buffer => base32Decode(k.key) ?? Buffer.alloc(0);

const sameCode = (a: string, b: string): boolean =>
  a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

const codeBody = z.object({ code: weakString({ default: '' }) }).prefault({});

export function totpPlugin(now: () => number = Date.now) {
  return definePlugin({
    name: 'totp',
    routes: [
      {
        pattern: 'keys',
        synopsis: 'Lists the keys.',
        history: true,
        operations: {
          list: pluginOperation({
            handler: async ({ storage }) => ({ data: { keys: await storage.list('keys/') } }),
          }),
        },
      },
      {
        pattern: 'keys/:name',
        synopsis: 'Creates, reads or deletes a key.',
        // the read shows the key's settings, never its secret
        history: true,
        operations: {
          update: pluginOperation({
            body: totpKeyBody,
            handler: async ({ params, body, storage }) => {
              const key = decideTotpKey(body);
              await storage.put(keyPath(params['name'] ?? ''), JSON.stringify(key));
              if (!body.generate || !body.exported) return {};
              const url = otpauthUrl(key);
              // qr_size 0: no barcode, as Vault
              if (body.qr_size === 0) return { data: { url } };
              return { data: { url, barcode: await barcodePng(url, body.qr_size) } };
            },
          }),
          read: pluginOperation({
            handler: async ({ params, storage }) => {
              const key = await loadKey(storage, params['name'] ?? '');
              if (!key) return { data: null };
              const { account_name, algorithm, digits, issuer, period } = key;
              return { data: { account_name, algorithm, digits, issuer, period } };
            },
          }),
          delete: pluginOperation({
            handler: async ({ params, storage }) => {
              await storage.delete(keyPath(params['name'] ?? ''));
              return {};
            },
          }),
        },
      },
      {
        pattern: 'code/:name',
        synopsis: 'Generates or validates a code.',
        operations: {
          read: pluginOperation({
            handler: async ({ params, storage }) => {
              const name = params['name'] ?? '';
              const key = await loadKey(storage, name);
              if (!key) throw bad(`unknown key: ${name}`);
              const code = hotp(secretOf(key), counterAt(now(), key.period), key.digits, key.algorithm);
              return { data: { code } };
            },
          }),
          update: pluginOperation({
            body: codeBody,
            handler: async ({ params, body, storage }) => {
              const name = params['name'] ?? '';
              if (body.code === '') throw bad('the code value is required');
              const key = await loadKey(storage, name);
              if (!key) throw bad(`unknown key: ${name}`);
              const current = counterAt(now(), key.period);
              const used = key.used.filter((u) => u.counter >= current - key.skew);
              if (used.some((u) => sameCode(u.code, body.code)))
                throw bad('code already used; wait until the next time period');
              let matched: number | undefined;
              for (let d = -key.skew; d <= key.skew; d++) {
                if (sameCode(hotp(secretOf(key), current + d, key.digits, key.algorithm), body.code))
                  matched = current + d;
              }
              if (matched !== undefined) used.push({ code: body.code, counter: matched });
              await storage.put(keyPath(name), JSON.stringify({ ...key, used }));
              return { data: { valid: matched !== undefined } };
            },
          }),
        },
      },
    ],
  });
}
