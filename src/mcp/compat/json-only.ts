/**
 * Tolerance "json-only-accept": a POST whose Accept takes JSON (`application/json` or `*\/*`) but not
 * `text/event-stream`. The lanes behind the front require both, so the front forwards the request accepting both
 * and turns an event-stream answer into the single JSON body the client asked for: the JSON-RPC responses of the
 * stream, one object (or an array for a batch). Server notifications sent before the result are left out.
 */
const EVENT_STREAM = "text/event-stream";
export const BOTH_ACCEPTED = "application/json, text/event-stream";

function mediaRanges(accept: string): string[] {
  return accept
    .split(",")
    .map((range) => range.split(";")[0]!.trim().toLowerCase())
    .filter((range) => range !== "");
}

/** True when the Accept header takes a JSON answer but refuses an event stream. */
export function wantsJsonOnly(accept: string | null): boolean {
  if (accept === null) return false;
  const ranges = mediaRanges(accept);
  if (ranges.includes(EVENT_STREAM)) return false;
  return ranges.includes("application/json") || ranges.includes("*/*") || ranges.includes("application/*");
}

function isResponse(message: unknown): boolean {
  return (
    typeof message === "object" && message !== null && "id" in message && ("result" in message || "error" in message)
  );
}

/** The JSON-RPC messages of an event stream's `data:` fields (events whose data is not JSON are skipped). */
export function eventStreamMessages(text: string): unknown[] {
  const messages: unknown[] = [];
  for (const event of text.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).replace(/^ /, ""))
      .join("\n");
    if (data.trim() === "") continue;
    try {
      messages.push(JSON.parse(data));
    } catch {
      // A priming or keep-alive event: not a message.
    }
  }
  return messages;
}

/** `response` as one JSON body when it is an event stream; anything else passes unchanged. */
export async function asJsonAnswer(response: Response, batch: boolean): Promise<Response> {
  if (!(response.headers.get("content-type") ?? "").toLowerCase().startsWith(EVENT_STREAM)) return response;
  const responses = eventStreamMessages(await response.text()).filter(isResponse);
  const headers = new Headers(response.headers);
  headers.set("Content-Type", "application/json");
  headers.delete("Content-Length");
  if (responses.length === 0) return new Response(null, { status: 202, headers });
  return new Response(JSON.stringify(batch ? responses : responses[0]), { status: response.status, headers });
}
