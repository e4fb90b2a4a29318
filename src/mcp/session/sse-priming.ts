/**
 * The priming event of a 2025-11-25 POST SSE stream (SEP-1699): sent first, it carries an event id and no data,
 * plus the `retry` a client waits before reconnecting, so a client whose stream drops can come back with
 * Last-Event-ID and have the stream's events replayed. The id names the stream the way McpAgent's event store
 * does (`<streamId>:<16 hex digits>`), at sequence 0: resuming from it replays every event of the stream.
 * The frame travels as McpAgent's own bridge message, which the Worker writes verbatim onto the SSE response.
 * `data:` has no space: the same empty data to an SSE parser, and skipped by line splitters that look for "data: ".
 */
export const SSE_RETRY_MS = 1000;

export function primingEventId(streamId: string): string {
  return `${streamId}:${"0".repeat(16)}`;
}

/** The bridge message (WebSocket frame from the session object to the Worker) that writes the priming event. */
export function primingFrame(streamId: string): string {
  return JSON.stringify({
    type: "cf_mcp_agent_event",
    event: `retry: ${SSE_RETRY_MS}\nid: ${primingEventId(streamId)}\ndata:\n\n`,
  });
}
