/** SHA-256 as lowercase hex: content hashes, cache keys and secret hashes all use this one digest. */
export async function sha256Hex(data: Uint8Array | string): Promise<string> {
  // The DOM typing (the Node-side type check reaches this file) refuses a view that might sit on a
  // SharedArrayBuffer; nothing here makes one, and WebCrypto reads either.
  const bytes = (typeof data === "string" ? new TextEncoder().encode(data) : data) as Uint8Array<ArrayBuffer>;
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  let hex = "";
  for (const byte of digest) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

/** A content address as stored and shown: `sha256:<64 hex digits>` (sha256Hex is the bare hex). */
export async function sha256Digest(bytes: Uint8Array): Promise<string> {
  return `sha256:${await sha256Hex(bytes)}`;
}
