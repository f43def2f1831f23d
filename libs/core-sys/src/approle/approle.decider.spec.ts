import { approleRoleBodySchema, approleSecretIdBodySchema } from '@coffer/contracts';
import { DEFAULT_TOKEN_SETTINGS } from '../userpass/userpass.decider';
import {
  cidrSubset,
  decideRoleWrite,
  decideSecretIdSettings,
  evolveSecretId,
  normalizeRoleName,
  parseMetadata,
  secretIdRefusal,
  type RoleState,
  type SecretIdState,
} from './approle.decider';

const key = { mountUuid: 'm', roleName: 'web' };
const role = (over: Partial<RoleState> = {}): RoleState => ({
  ...key,
  roleId: 'rid',
  bindSecretId: true,
  secretIdBoundCidrs: [],
  secretIdNumUses: 0,
  secretIdTtl: 0,
  localSecretIds: false,
  settings: DEFAULT_TOKEN_SETTINGS,
  legacyPolicies: [],
  legacyPeriod: 0,
  ...over,
});
const secret = (over: Partial<SecretIdState> = {}): SecretIdState => ({
  mountUuid: 'm',
  hmac: 'h',
  roleName: 'web',
  accessor: 'a',
  metadata: {},
  cidrList: [],
  tokenBoundCidrs: [],
  numUses: 0,
  ttl: 0,
  createdAt: 1000,
  lastUpdatedAt: 1000,
  expiresAt: null,
  ...over,
});
const roleBody = (fields: Record<string, unknown>) => approleRoleBodySchema.parse(fields);
const idBody = (fields: Record<string, unknown>) => approleSecretIdBodySchema.parse(fields);

describe('approle decider', () => {
  it('creates roles with Vault defaults and a generated role id', () => {
    const created = decideRoleWrite(null, key, roleBody({}), 'generated');
    expect(created).toMatchObject({ roleId: 'generated', bindSecretId: true, secretIdNumUses: 0 });
    expect(decideRoleWrite(created, key, roleBody({ secret_id_ttl: 60 }), 'other').roleId).toBe('generated');
    expect(decideRoleWrite(null, key, roleBody({ period: 30 }), 'g').settings.tokenPeriod).toBe(30);
  });

  it('requires a constraint and keeps local_secret_ids from creation', () => {
    expect(() => decideRoleWrite(null, key, roleBody({ bind_secret_id: false }), 'g')).toThrow(
      'at least one constraint should be enabled on the role',
    );
    const existing = decideRoleWrite(null, key, roleBody({}), 'g');
    expect(() => decideRoleWrite(existing, key, roleBody({ local_secret_ids: true }), 'g')).toThrow(
      'local_secret_ids can only be modified during role creation',
    );
  });

  it('spends uses and drops the secret id with its last use', () => {
    const used = { type: 'ApproleSecretIdUsed', data: { usedAt: 2000 } } as const;
    expect(evolveSecretId(secret({ numUses: 2 }), used)).toMatchObject({ numUses: 1, lastUpdatedAt: 2000 });
    expect(evolveSecretId(secret({ numUses: 1 }), used)).toBeNull();
  });

  it("bounds a secret id's uses, ttl and CIDRs by the role's", () => {
    const limited = role({ secretIdNumUses: 3, secretIdTtl: 600, secretIdBoundCidrs: ['10.0.0.0/8'] });
    expect(decideSecretIdSettings(limited, idBody({}))).toMatchObject({ numUses: 3, ttl: 600 });
    expect(() => decideSecretIdSettings(limited, idBody({ num_uses: 0 }))).toThrow(
      "role's secret_id_num_uses",
    );
    expect(() => decideSecretIdSettings(limited, idBody({ ttl: 601 }))).toThrow("role's secret_id_ttl");
    expect(() => decideSecretIdSettings(limited, idBody({ cidr_list: ['11.0.0.0/8'] }))).toThrow(
      'failed to verify the CIDR restrictions',
    );
    expect(decideSecretIdSettings(limited, idBody({ cidr_list: ['10.1.0.0/16'] })).cidrList).toEqual([
      '10.1.0.0/16',
    ]);
  });

  it('checks CIDR subsets', () => {
    expect(cidrSubset(['10.1.0.0/16'], ['10.0.0.0/8'])).toBe(true);
    expect(cidrSubset(['10.0.0.0/8'], ['10.1.0.0/16'])).toBe(false);
    expect(cidrSubset([], [])).toBe(true);
  });

  it('parses metadata as a JSON object of strings, __proto__ kept as data', () => {
    expect(parseMetadata('{"a":"1"}')).toEqual({ a: '1' });
    expect(parseMetadata(undefined)).toEqual({});
    expect(() => parseMetadata('[1]')).toThrow('failed to parse metadata');
    expect(Object.getPrototypeOf(parseMetadata('{"__proto__":"x"}'))).toBe(Object.prototype);
  });

  it('refuses expired secret ids and addresses outside the bound CIDRs', () => {
    expect(secretIdRefusal(role(), secret({ expiresAt: 5000 }), '127.0.0.1', 5000)?.message).toBe(
      'invalid secret id',
    );
    expect(secretIdRefusal(role(), secret({ cidrList: ['10.0.0.0/8'] }), '127.0.0.1', 0)?.message).toContain(
      'unauthorized by CIDR restrictions on the secret ID',
    );
    expect(secretIdRefusal(role(), secret(), '127.0.0.1', 0)).toBeNull();
  });

  it('validates role names and lower-cases them', () => {
    expect(normalizeRoleName('Web')).toBe('web');
    expect(() => normalizeRoleName('a/b')).toThrow('unsupported path');
  });
});
