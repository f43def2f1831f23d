import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { OidcDb, type CodeState } from '../shared/oidc.table';
import { SealedJson } from '../shared/sealed-json';
import type { AccessGrant, CodeGrant } from './grant.state';

/** Codes and access tokens are stored by their SHA-256 only (never in clear). */
export const secretHash = (secret: string): string =>
  createHash('sha256').update(secret, 'utf8').digest('hex');

export const codeAad = (codeHash: string): string => `oidc/code/${codeHash}`;
export const accessAad = (tokenHash: string): string => `oidc/access-token/${tokenHash}`;

export interface StoredCode {
  grant: CodeGrant;
  state: CodeState;
  version: number;
}

export interface StoredAccessToken {
  grant: AccessGrant;
  expiresAtMs: number;
  revoked: boolean;
}

/** All SQL of codes and access tokens. */
@Injectable()
export class OidcGrantRepository {
  constructor(
    private readonly db: OidcDb,
    private readonly sealed: SealedJson,
  ) {}

  async code(codeHash: string): Promise<StoredCode | undefined> {
    const row = await this.db
      .of()
      .selectFrom('codes')
      .select(['body', 'state', 'stream_version'])
      .where('code_hash', '=', codeHash)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      grant: this.sealed.open<CodeGrant>(row.body, codeAad(codeHash)),
      state: row.state,
      version: row.stream_version,
    };
  }

  async accessToken(tokenHash: string): Promise<StoredAccessToken | undefined> {
    const row = await this.db
      .of()
      .selectFrom('access_tokens')
      .select(['body', 'expires_ms', 'revoked'])
      .where('token_hash', '=', tokenHash)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      grant: this.sealed.open<AccessGrant>(row.body, accessAad(tokenHash)),
      expiresAtMs: row.expires_ms,
      revoked: row.revoked,
    };
  }

  /**
   * Drops read-model rows of access tokens expired before `beforeMs`, and of expired codes that
   * no live access token came from (a replayed code must still find its tokens to revoke them).
   * The log keeps their history.
   */
  async purgeExpired(beforeMs: number): Promise<number> {
    const tokens = await this.db
      .of()
      .deleteFrom('access_tokens')
      .where('expires_ms', '<', beforeMs)
      .executeTakeFirst();
    const codes = await this.db
      .of()
      .deleteFrom('codes')
      .where('expires_ms', '<', beforeMs)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('access_tokens')
              .select('token_hash')
              .whereRef('access_tokens.code_hash', '=', 'codes.code_hash'),
          ),
        ),
      )
      .executeTakeFirst();
    return Number(codes.numDeletedRows) + Number(tokens.numDeletedRows);
  }
}
