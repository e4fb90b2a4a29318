/**
 * Reads an upload body into ONE contiguous buffer without ever holding a second copy of a large document:
 * with a Content-Length the buffer is allocated once at its final size; without one (chunked transfer) the
 * pieces are joined once at the end. A body above `limit` is refused as soon as that is known: before
 * reading anything when Content-Length says so, otherwise when the running count passes the limit. The rest of
 * a refused body is read and dropped (up to DRAIN_LIMIT_BYTES) rather than cancelled: an HTTP client still
 * sending gets the 413 answer instead of a reset connection. Large uploads use readBodyWhole: a body of known
 * length read by the runtime in one piece.
 */
const DRAIN_LIMIT_BYTES = 256 * 1024 * 1024;

async function drain(reader: ReadableStreamDefaultReader<Uint8Array>, alreadyRead = 0): Promise<void> {
  let total = alreadyRead;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      total += value.byteLength;
      if (total > DRAIN_LIMIT_BYTES) {
        await reader.cancel();
        return;
      }
    }
  } catch {
    // The client went away: nothing left to drain.
  }
}

export type BodyRead =
  | { ok: true; bytes: Uint8Array }
  | { ok: false; reason: "too_large"; limit: number }
  | { ok: false; reason: "empty" }
  /** More bytes arrived than the Content-Length declares. */
  | { ok: false; reason: "length_mismatch" }
  /**
   * The body ended before its Content-Length was reached, or the connection broke while it was read (the
   * runtime then fails the read: "Network connection lost"). `declared` is absent for a chunked body.
   */
  | { ok: false; reason: "truncated"; received: number; declared?: number };

/** What a whole read (readBodyWhole) adds: the connection broke before Content-Length was reached, at a count the runtime does not say. */
export type WholeBodyRead = BodyRead | { ok: false; reason: "cut_off"; declared: number };

/**
 * A body whose Content-Length is known and within the limit, read by the runtime in one piece (`arrayBuffer()`):
 * no JavaScript per chunk, which for a 13 MB document upload cost 10 to 20 ms beside the transfer itself. The
 * runtime ends the body at the declared length; a body that ends early comes back short, one whose connection
 * breaks fails the read.
 */
async function readWhole(request: Request, declared: number): Promise<WholeBodyRead> {
  let buffer: ArrayBuffer;
  try {
    buffer = await request.arrayBuffer();
  } catch {
    return { ok: false, reason: "cut_off", declared };
  }
  if (buffer.byteLength > declared) return { ok: false, reason: "length_mismatch" };
  if (buffer.byteLength < declared) return { ok: false, reason: "truncated", received: buffer.byteLength, declared };
  return { ok: true, bytes: new Uint8Array(buffer) };
}

/** readBodyLimited for large uploads: a body of known length is read in one piece (readWhole). */
export async function readBodyWhole(request: Request, limit: number): Promise<WholeBodyRead> {
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (request.body && Number.isInteger(declared) && declared > 0 && declared <= limit)
    return readWhole(request, declared);
  return readBodyLimited(request, limit);
}

export async function readBodyLimited(request: Request, limit: number): Promise<BodyRead> {
  const declaredHeader = request.headers.get("content-length");
  const declared = declaredHeader === null ? undefined : Number(declaredHeader);
  if (declared !== undefined && Number.isFinite(declared) && declared > limit) {
    if (request.body) await drain(request.body.getReader());
    return { ok: false, reason: "too_large", limit };
  }
  if (!request.body || declared === 0) return { ok: false, reason: "empty" };

  const reader = request.body.getReader();
  const sized = declared !== undefined && Number.isInteger(declared) && declared > 0;
  const target = sized ? new Uint8Array(declared) : undefined;
  const pieces: Uint8Array[] = [];
  let received = 0;
  const truncated = (): BodyRead => ({ ok: false, reason: "truncated", received, ...(sized ? { declared } : {}) });
  for (;;) {
    let chunk: ReadableStreamReadResult<Uint8Array>;
    try {
      chunk = await reader.read();
    } catch {
      return truncated();
    }
    const { done, value } = chunk;
    if (done) break;
    if (received + value.byteLength > (target ? target.byteLength : limit)) {
      pieces.length = 0;
      await drain(reader, received + value.byteLength);
      return target ? { ok: false, reason: "length_mismatch" } : { ok: false, reason: "too_large", limit };
    }
    if (target) target.set(value, received);
    else pieces.push(value);
    received += value.byteLength;
  }
  if (received === 0 && !sized) return { ok: false, reason: "empty" };
  if (target) return received === target.byteLength ? { ok: true, bytes: target } : truncated();
  const joined = new Uint8Array(received);
  let offset = 0;
  for (const piece of pieces.splice(0)) {
    joined.set(piece, offset);
    offset += piece.byteLength;
  }
  return { ok: true, bytes: joined };
}
