/**
 * server/discover at /mcp lists every protocol version this URL serves: the SDK's stateless lane answers with
 * the 2026-07-28 revisions it negotiates, and the versions the session lane negotiates with initialize are
 * added after them, so a client that discovers first knows it may also fall back to initialize here.
 */
import { SESSION_ERA_VERSION_LIST } from "./era";

function isDiscover(body: unknown): boolean {
  return (
    typeof body === "object" &&
    body !== null &&
    !Array.isArray(body) &&
    (body as { method?: unknown }).method === "server/discover"
  );
}

export async function withEveryServedVersion(response: Response, body: unknown): Promise<Response> {
  if (
    !isDiscover(body) ||
    response.status !== 200 ||
    !(response.headers.get("content-type") ?? "").toLowerCase().startsWith("application/json")
  )
    return response;
  const text = await response.text();
  const headers = new Headers(response.headers);
  headers.delete("Content-Length");
  try {
    const answer = JSON.parse(text) as { result?: { supportedVersions?: unknown } };
    const listed = answer.result?.supportedVersions;
    if (Array.isArray(listed)) {
      answer.result!.supportedVersions = [...new Set([...listed, ...SESSION_ERA_VERSION_LIST])];
      return new Response(JSON.stringify(answer), { status: response.status, headers });
    }
  } catch {
    // Not a JSON-RPC answer: passed on as it came.
  }
  return new Response(text, { status: response.status, headers });
}
