import { Injectable } from '@nestjs/common';
import { AggregateWriter, versionAfter, type AppendedOf, type Projection } from '@coffer/event-store';
import { OidcDb, type OidcTrx } from '../shared/oidc.table';
import { SealedJson } from '../shared/sealed-json';
import type { CodeRef, OIDC_CODE_EVENT_TYPES } from './grant.events';
import { accessAad, codeAad } from './grant.repository';
import type { AccessGrant } from './grant.state';

type CodeEvents = typeof OIDC_CODE_EVENT_TYPES;

/** Codes and the access tokens they gave; a replay revokes the tokens of the code. */
@Injectable()
export class OidcCodeProjection implements Projection<CodeEvents, void, CodeRef> {
  constructor(
    private readonly db: OidcDb,
    private readonly sealed: SealedJson,
  ) {}

  async apply(trx: OidcTrx, events: AppendedOf<CodeEvents>[], ref: CodeRef): Promise<void> {
    const db = this.db.of(trx);
    const version = versionAfter(events);
    for (const event of events) {
      switch (event.type) {
        case 'OidcCodeIssued':
          await db
            .insertInto('codes')
            .values({
              code_hash: ref.codeHash,
              body: this.sealed.seal(event.data.grant, codeAad(ref.codeHash)),
              expires_ms: event.data.grant.expiresAtMs,
              state: 'issued',
              stream_version: version,
            })
            .execute();
          break;
        case 'OidcCodeRedeemed': {
          await db
            .updateTable('codes')
            .set({ state: 'redeemed', stream_version: version })
            .where('code_hash', '=', ref.codeHash)
            .execute();
          const tokenHash = event.data.accessTokenHash;
          if (tokenHash === null) break;
          const { namespace, provider, clientId, entityId, scopes, tokenRef } = ref.grant;
          const grant: AccessGrant = { namespace, provider, clientId, entityId, scopes, tokenRef };
          await db
            .insertInto('access_tokens')
            .values({
              token_hash: tokenHash,
              code_hash: ref.codeHash,
              body: this.sealed.seal(grant, accessAad(tokenHash)),
              expires_ms: event.data.accessTokenExpiresAtMs,
              revoked: false,
            })
            .execute();
          break;
        }
        case 'OidcCodeReplayed':
          await db
            .updateTable('codes')
            .set({ state: 'replayed', stream_version: version })
            .where('code_hash', '=', ref.codeHash)
            .execute();
          await db
            .updateTable('access_tokens')
            .set({ revoked: true })
            .where('code_hash', '=', ref.codeHash)
            .execute();
          break;
      }
    }
  }
}

/** Appends to one code's stream: `append({ codeHash, grant }, expectedVersion, events)`. */
export abstract class OidcCodeEventLog extends AggregateWriter<CodeEvents, void, CodeRef> {}
