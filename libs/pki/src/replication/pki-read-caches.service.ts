import { Injectable } from '@nestjs/common';
import { CrlService } from '../crl/crl.service';
import { CaStore } from '../issuer/ca-store';
import { DocumentCache } from '../shared/document-cache';

/**
 * Every in-memory cache this replica keeps of the pki read model, dropped at once when rows
 * change outside its own writes (a secondary's replayed batch, a wipe). A new cache of read-model
 * rows (parsed CAs, roles, issuers, CRLs) adds its drop to `drop`.
 */
@Injectable()
export class PkiReadCaches {
  constructor(
    private readonly cas: CaStore,
    private readonly crls: CrlService,
    private readonly documents: DocumentCache,
  ) {}

  drop(): void {
    this.cas.forget();
    this.crls.forget();
    this.documents.invalidateAll();
  }
}
