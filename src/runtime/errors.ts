/** TensorError: every failure a user can cause or meet comes out as one of these. */
export class TensorError extends Error {
  /** The operation that failed, e.g. "add" or "buffer_alloc". */
  readonly op: string;
  /** The native status code when the failure came from the shim, else 0. */
  readonly status: number;
  constructor(op: string, message: string, status = 0) {
    super(`${op}: ${message}`);
    this.name = "TensorError";
    this.op = op;
    this.status = status;
  }
}
