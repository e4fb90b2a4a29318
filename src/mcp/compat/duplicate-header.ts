/**
 * Tolerance "duplicate-header": a header that a proxy or the client's own header merging sent twice arrives
 * comma-joined ("2025-11-25, 2025-11-25"). Identical copies collapse to one value; copies that disagree are a
 * conflict nothing here can settle, answered 400 with both values named.
 */
export const SINGLE_VALUED_MCP_HEADERS = ["mcp-protocol-version", "mcp-session-id"] as const;

export type DuplicateHeaderOutcome =
  | { kind: "none" }
  | { kind: "collapsed"; header: string; value: string }
  | { kind: "conflict"; header: string; values: string[] };

/** What to do with one header's raw value (as Headers.get joins repeated lines). */
export function readSingleValued(header: string, raw: string | null): DuplicateHeaderOutcome {
  if (raw === null || !raw.includes(",")) return { kind: "none" };
  const copies = raw
    .split(",")
    .map((copy) => copy.trim())
    .filter((copy) => copy !== "");
  const distinct = [...new Set(copies)];
  if (distinct.length === 1) return { kind: "collapsed", header, value: distinct[0]! };
  return { kind: "conflict", header, values: distinct.slice(0, 5) };
}
