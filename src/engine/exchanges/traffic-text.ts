/**
 * Verdicts of recorded traffic are stored and shown to everyone who can read the project, but the traffic itself
 * is dropped because it carries credentials and personal data. So no finding may quote it: locations and
 * messages are built from the contract (templates, parameter and property names it declares) and from the
 * shape of the traffic (positions, counts, types), never from its strings. These helpers clean the two places
 * where the schema validator would otherwise echo a value.
 */
import type { PayloadError } from "../types";

/** Keys of a recorded body become pointer tokens; only identifier-like ones (and array indexes) are kept. */
const PLAIN_TOKEN = /^(?:\d{1,9}|[A-Za-z_$][A-Za-z0-9_$.-]{0,63})$/;

export function trafficPointer(pointer: string): string {
  if (pointer === "") return pointer;
  return pointer
    .split("/")
    .map((token, position) => (position === 0 || PLAIN_TOKEN.test(token) ? token : "*"))
    .join("/");
}

const NUMERIC_KEYWORDS = new Set(["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"]);

/** The validator's message without the recorded value it may start with or the property name it may quote. */
export function trafficMessage(error: PayloadError): string {
  if (NUMERIC_KEYWORDS.has(error.keyword)) return error.message.replace(/^\S+ is /, "the value is ");
  if (error.keyword === "additionalProperties" || error.keyword === "unevaluatedProperties")
    return `this property is not allowed here (${error.keyword}: false)`;
  return error.message;
}

/** Media types common enough to name; any other recorded value is only described, never quoted. */
const NAMED_MEDIA_TYPES = new Set([
  "application/json",
  "application/problem+json",
  "application/xml",
  "application/x-www-form-urlencoded",
  "application/octet-stream",
  "application/x-ndjson",
  "multipart/form-data",
  "text/plain",
  "text/html",
  "text/csv",
  "text/xml",
  "text/event-stream",
]);

/** A recorded content type, named only when it is a common one: a recorded header may hold anything. */
export function trafficMediaType(value: string | undefined): string {
  const essence = (value ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  if (NAMED_MEDIA_TYPES.has(essence)) return essence;
  if (/^[a-z0-9.+-]+\/([a-z0-9.-]+\+)?json$/.test(essence)) return "a JSON media type";
  return "a media type of its own";
}
