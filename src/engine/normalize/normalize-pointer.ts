/**
 * JSON Pointer helpers, used by the in-document `$ref` resolver (ref-resolver.ts). Refs are URI fragments holding a
 * JSON Pointer (RFC 6901 inside RFC 3986): a component named "a/b c" is referenced as "#/components/schemas/a~1b%20c".
 */

/** Escapes one reference token: "~" -> "~0", "/" -> "~1". */
export function escapeToken(token: string): string {
  return token.replace(/~/g, "~0").replace(/\//g, "~1");
}

export function unescapeToken(token: string): string {
  return token.replace(/~1/g, "/").replace(/~0/g, "~");
}

/** Builds a pointer ("/a/b~1c") from raw tokens. */
export function pointerOf(tokens: readonly (string | number)[]): string {
  let out = "";
  for (const token of tokens) out += `/${escapeToken(String(token))}`;
  return out;
}

/** Splits a `$ref` fragment ("#/components/schemas/a~1b") into raw tokens; undefined when it is not a pointer. */
export function refTokens(ref: string): string[] | undefined {
  if (!ref.startsWith("#")) return undefined;
  // Most references need neither percent-decoding nor unescaping.
  if (ref.startsWith("#/") && !ref.includes("%") && !ref.includes("~")) return ref.slice(2).split("/");
  let fragment = ref.slice(1);
  try {
    fragment = decodeURIComponent(fragment);
  } catch {
    return undefined;
  }
  if (fragment === "") return [];
  if (!fragment.startsWith("/")) return undefined;
  return fragment.slice(1).split("/").map(unescapeToken);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function hasOwn(value: object, key: string): boolean {
  return Object.hasOwn(value, key);
}

/** Names every plain object inherits ("constructor", "toString", ...): a token naming one must be an own property. */
const INHERITED_NAMES: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));

/** Value at `tokens` inside `root`, or undefined. */
export function valueAt(root: unknown, tokens: readonly string[]): unknown {
  let current: unknown = root;
  for (const token of tokens) {
    if (Array.isArray(current)) {
      if (!/^(0|[1-9]\d*)$/.test(token)) return undefined;
      current = current[Number(token)];
    } else if (isRecord(current)) {
      const next: unknown = current[token];
      // One lookup by name; only names Object.prototype also has need the slower check that they are the
      // object's own ("constructor" must not resolve to Object).
      if (next === undefined || (INHERITED_NAMES.has(token) && !hasOwn(current, token))) return undefined;
      current = next;
    } else {
      return undefined;
    }
  }
  return current;
}
