/** A refused request stream: the caller answers `status` with `{"errors":[message]}` and closes. */
export class FramingError extends Error {
  constructor(
    message: string,
    /** HTTP status of the refusal: 400, or 431 for oversized heads */
    readonly status: number,
    /** true when no byte of the offending request reached Node (its head was refused) */
    readonly atBoundary: boolean,
  ) {
    super(message);
    this.name = 'FramingError';
  }
}
