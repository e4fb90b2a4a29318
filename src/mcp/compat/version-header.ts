/**
 * Tolerances "envelope-with-session-era-header" and "session-with-other-version-header": which protocol version
 * a request's MCP-Protocol-Version header should be read as, when the client's header contradicts what the
 * request itself shows. Pure: takes the header, the session id and the parsed body, returns the header to use.
 */
import { ENVELOPE_VERSION_KEY, MODERN_ERA_VERSIONS, SESSION_ERA_VERSIONS } from "../era";

export type VersionHeaderOutcome =
  | { kind: "none" }
  /** The envelope names a modern version this URL serves; the header named a session-era one. */
  | { kind: "envelope-wins"; header: string; envelope: string }
  /** A session request whose header names a modern version: the session keeps its negotiated version. */
  | { kind: "session-version"; header: string };

function envelopeVersion(body: unknown): string | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
  const meta = (body as { params?: { _meta?: Record<string, unknown> } }).params?._meta;
  const version = typeof meta === "object" && meta !== null ? meta[ENVELOPE_VERSION_KEY] : undefined;
  return typeof version === "string" ? version : undefined;
}

export function readVersionHeader(
  header: string | null,
  sessionId: string | null,
  body: unknown,
): VersionHeaderOutcome {
  if (header === null) return { kind: "none" };
  const version = header.trim();
  if (sessionId !== null) {
    return MODERN_ERA_VERSIONS.has(version) ? { kind: "session-version", header: version } : { kind: "none" };
  }
  const envelope = envelopeVersion(body);
  if (envelope !== undefined && MODERN_ERA_VERSIONS.has(envelope) && SESSION_ERA_VERSIONS.has(version)) {
    return { kind: "envelope-wins", header: version, envelope };
  }
  return { kind: "none" };
}
