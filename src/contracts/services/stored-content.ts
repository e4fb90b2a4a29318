/**
 * The stored bytes of a contract or snapshot document, as a stream for downloads or as text for tools and
 * resources. Content lives in the project's store or its bucket space; the caller names only the project.
 */
import { readContentText, streamContent } from "../store/client";
import type { ContractsCaller } from "./caller";
import { placeOf } from "./store-access";

/** The stored document streamed piece by piece, or null when its content cannot be found. */
export async function documentStream(
  caller: ContractsCaller,
  project: string,
  contentHash: string,
): Promise<{ size: number; body: ReadableStream<Uint8Array> } | null> {
  return streamContent(await placeOf(caller, project), contentHash);
}

/** The stored document as UTF-8 text (documents are validated as UTF-8 at upload), or null when it is missing. */
export async function documentText(
  caller: ContractsCaller,
  project: string,
  contentHash: string,
): Promise<string | null> {
  return readContentText(await placeOf(caller, project), contentHash);
}
