import { sha256Hex as hex } from "../../lib/sha256";

/** Content hashes as stored and shown: `sha256:<64 hex digits>`. */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  return `sha256:${await hex(bytes)}`;
}
