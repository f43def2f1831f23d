export { readPgpKeys, pgpEncrypt, type PgpRecipient } from './pgp-encryption';
export { readShare } from './share-input';
export { addRoundShare, addShare, wipeShares, recoverRootKey } from './share-round';
export { SerialQueue } from './serial-queue';
