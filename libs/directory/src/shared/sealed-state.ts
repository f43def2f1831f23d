import type { Cipher } from '@coffer/barrier';
import { recordStateSchema, type RecordState } from '../records/record.state';

/** A record's state behind the barrier, bound to its stream (a moved row does not decrypt). */
export class SealedState {
  constructor(private readonly cipher: Cipher) {}

  seal(state: RecordState, stream: string): Buffer {
    return this.cipher.encrypt(Buffer.from(JSON.stringify(state), 'utf8'), Buffer.from(stream, 'utf8'));
  }

  open(sealed: Buffer, stream: string): RecordState {
    const json: unknown = JSON.parse(
      this.cipher.decrypt(sealed, Buffer.from(stream, 'utf8')).toString('utf8'),
    );
    return recordStateSchema.parse(json);
  }
}
