/**
 * HTML form posts (application/x-www-form-urlencoded) read with the size-limited body reader: a body that ends
 * before its Content-Length, is too large, is not UTF-8 or has another media type is an answer the page can
 * give ("the form could not be read"), never an exception from request.formData().
 */
import { readBodyLimited } from "./body";

/** Larger than any form of this server (a consent form lists at most a few dozen scopes). */
export const MAX_FORM_BYTES = 64 * 1024;

/** The media type alone, trimmed and in lower case, as the OAuth library compares it too. */
export function isUrlEncodedForm(contentType: string | null): boolean {
  return (contentType ?? "").split(";")[0]!.trim().toLowerCase() === "application/x-www-form-urlencoded";
}

export type FormRead =
  | { ok: true; form: URLSearchParams }
  | { ok: false; reason: "media_type" | "too_large" | "truncated" | "unreadable" };

export async function readUrlEncodedForm(request: Request, limit = MAX_FORM_BYTES): Promise<FormRead> {
  if (!isUrlEncodedForm(request.headers.get("content-type"))) return { ok: false, reason: "media_type" };
  const read = await readBodyLimited(request, limit);
  if (!read.ok) {
    if (read.reason === "empty") return { ok: true, form: new URLSearchParams() };
    return {
      ok: false,
      reason: read.reason === "too_large" ? "too_large" : read.reason === "truncated" ? "truncated" : "unreadable",
    };
  }
  try {
    return {
      ok: true,
      form: new URLSearchParams(new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(read.bytes)),
    };
  } catch {
    return { ok: false, reason: "unreadable" };
  }
}

/** What to tell a person whose form post could not be read. */
export function unreadableFormMessage(reason: Exclude<FormRead, { ok: true }>["reason"]): string {
  switch (reason) {
    case "media_type":
      return "The answer was not sent as a form. Go back to the page and use its buttons.";
    case "too_large":
      return "The form sent is larger than any form of this page. Go back to the page and try again.";
    case "truncated":
      return "The form arrived incomplete (the connection ended early). Go back to the page and try again.";
    case "unreadable":
      return "The form could not be read (it is not UTF-8 text). Go back to the page and try again.";
  }
}
