/**
 * Media types compared as families: application/json, application/problem+json, text/json and any "+json"
 * suffix are the JSON family; "+xml" and xml likewise; anything else is its own family (parameters dropped).
 */
export function mediaTypeEssence(mediaType: string): string {
  return (mediaType.split(";")[0] ?? "").trim().toLowerCase();
}

export function mediaTypeFamily(mediaType: string): string {
  const essence = mediaTypeEssence(mediaType);
  const subtype = essence.split("/")[1] ?? "";
  if (subtype === "json" || subtype.endsWith("+json") || subtype === "x-json") return "json";
  if (subtype === "xml" || subtype.endsWith("+xml")) return "xml";
  return essence;
}

/** Whether a declared media type (possibly a wildcard such as * / * or application/ *) covers `mediaType`. */
export function mediaTypeCovers(declared: string, mediaType: string): boolean {
  const range = mediaTypeEssence(declared);
  const essence = mediaTypeEssence(mediaType);
  if (range === "*/*" || range === essence) return true;
  if (range.endsWith("/*")) return essence.startsWith(range.slice(0, -1));
  return mediaTypeFamily(range) === mediaTypeFamily(essence);
}

/**
 * The entry of `content` that best stands for `mediaType`: the same type, then the same family (preferring
 * application/json), then a wildcard.
 */
export function pickMediaType(content: Record<string, unknown>, mediaType: string): string | undefined {
  const keys = Object.keys(content);
  const essence = mediaTypeEssence(mediaType);
  const exact = keys.find((key) => mediaTypeEssence(key) === essence);
  if (exact !== undefined) return exact;
  const family = mediaTypeFamily(essence);
  const sameFamily = keys.filter((key) => mediaTypeFamily(key) === family);
  if (sameFamily.length > 0)
    return sameFamily.find((key) => mediaTypeEssence(key) === "application/json") ?? sameFamily[0];
  return keys.find((key) => mediaTypeCovers(key, essence));
}
