/**
 * The gateway: sends one allowlisted operation to an upstream and turns the answer into data or a safe
 * GatewayFailure. User input travels only as `variables`; the query text is the operation file's. The timeout
 * aborts the upstream request (the upstream sees its connection closed); the answer is read with a size
 * cap; HTTP errors, malformed bodies, network failures and GraphQL errors become messages that name what
 * happened without upstream internals (no bodies, stack traces or URLs).
 */
import { GatewayFailure } from "./errors";
import { logWarn } from "../web/log";
import type { GraphqlOperation } from "./catalog";
import type { ResolvedUpstream } from "./upstream";

export type Fetcher = (request: Request) => Promise<Response>;

export interface UpstreamError {
  message: string;
  path?: Array<string | number>;
}

export interface UpstreamAnswer {
  data: Record<string, unknown>;
  /** Non-empty for partial answers. */
  errors: UpstreamError[];
}

export interface GatewayLimits {
  timeoutMs: number;
  maxResponseBytes: number;
}

const MAX_ERRORS_REPORTED = 10;
const MAX_ERROR_TEXT = 200;

export function formatSeconds(ms: number): string {
  const seconds = ms / 1000;
  return Number.isInteger(seconds) ? String(seconds) : seconds.toFixed(seconds < 1 ? 2 : 1).replace(/0+$/, "");
}

class TooLarge extends Error {}

async function readCapped(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new TooLarge();
  }
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new TooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

/** One line, bounded: an upstream's error text is shown, its stack traces and extensions are not. */
function summariseErrors(errors: unknown): UpstreamError[] {
  if (!Array.isArray(errors)) return [];
  return errors.slice(0, MAX_ERRORS_REPORTED).map((error) => {
    const raw = error && typeof error === "object" ? (error as { message?: unknown; path?: unknown }) : {};
    const message = typeof raw.message === "string" && raw.message.trim() ? raw.message.split("\n")[0]!.trim().slice(0, MAX_ERROR_TEXT) : "unspecified error";
    const path = Array.isArray(raw.path) && raw.path.every((p) => typeof p === "string" || typeof p === "number") ? (raw.path as Array<string | number>).slice(0, 20) : undefined;
    return path ? { message, path } : { message };
  });
}

export function describeUpstreamErrors(errors: readonly UpstreamError[]): string {
  return errors.map((error) => (error.path ? `${error.message} (at ${error.path.join(".")})` : error.message)).join("; ");
}

function httpFailure(status: number, body: string): GatewayFailure {
  if (status === 400 || status === 422) {
    // GraphQL over HTTP answers request errors (the upstream refusing the operation) with 4xx and `errors`.
    try {
      const errors = summariseErrors((JSON.parse(body) as { errors?: unknown }).errors);
      if (errors.length) {
        return new GatewayFailure("upstream-error", `The order API refused the operation: ${describeUpstreamErrors(errors)}. Its schema may not match policies/graphql/schema.graphql; tell the operator.`);
      }
    } catch {
      // not GraphQL: fall through to the status message
    }
  }
  if (status === 401 || status === 403) return new GatewayFailure("upstream-error", `The order API refused Arbiter's credentials (HTTP ${status}). The operator must check this organization's upstream credential.`);
  if (status === 404) return new GatewayFailure("upstream-error", "The order API endpoint was not found (HTTP 404). The operator must check this organization's upstream endpoint.");
  if (status === 429) return new GatewayFailure("upstream-error", "The order API is limiting requests (HTTP 429). Retry in a moment.");
  if (status >= 500) return new GatewayFailure("upstream-error", `The order API failed (HTTP ${status}). Retry later; if it keeps failing, tell the operator.`);
  return new GatewayFailure("upstream-error", `The order API answered HTTP ${status}, which is not a GraphQL result.`);
}

function interpret(status: number, body: string): UpstreamAnswer {
  if (status < 200 || status > 299) throw httpFailure(status, body);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new GatewayFailure("upstream-error", "The order API answered with a body that is not valid JSON. Retry later; if it keeps failing, tell the operator.");
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new GatewayFailure("upstream-error", "The order API answered JSON that is not a GraphQL result (no data, no errors).");
  }
  const result = parsed as { data?: unknown; errors?: unknown };
  const errors = summariseErrors(result.errors);
  const hasData = result.data !== null && typeof result.data === "object" && !Array.isArray(result.data);
  if (!hasData) {
    if (errors.length) throw new GatewayFailure("upstream-error", `The order API reported errors and no data: ${describeUpstreamErrors(errors)}`);
    throw new GatewayFailure("upstream-error", "The order API answered JSON that is not a GraphQL result (no data, no errors).");
  }
  return { data: result.data as Record<string, unknown>, errors };
}

/**
 * Runs `operation` on `upstream`. `signal` is the caller's cancellation (the MCP request); the timeout is
 * the operation's. Both abort the upstream request itself.
 */
export async function executeOnUpstream(
  upstream: ResolvedUpstream,
  operation: Pick<GraphqlOperation, "name" | "upstreamQuery">,
  variables: Record<string, unknown>,
  limits: GatewayLimits,
  signal: AbortSignal | undefined,
  organizationId: string,
): Promise<UpstreamAnswer> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error("timeout"));
  }, limits.timeoutMs);
  const onCancel = () => controller.abort(new Error("cancelled"));
  if (signal?.aborted) onCancel();
  signal?.addEventListener("abort", onCancel, { once: true });
  // Settles when the request is aborted, so a fetcher or body that ignores the signal cannot hold the caller.
  const aborted = new Promise<never>((_, reject) => controller.signal.addEventListener("abort", () => reject(controller.signal.reason), { once: true }));
  aborted.catch(() => undefined);

  try {
    const request = new Request(upstream.endpoint, {
      method: "POST",
      headers: upstream.headers,
      body: JSON.stringify({ query: operation.upstreamQuery, operationName: operation.name, variables }),
      signal: controller.signal,
    });
    const exchange = (async () => {
      const response = await upstream.fetcher(request);
      return { status: response.status, body: await readCapped(response, limits.maxResponseBytes) };
    })();
    exchange.catch(() => undefined);
    const { status, body } = await Promise.race([exchange, aborted]);
    const answer = interpret(status, body);
    if (answer.errors.length) logWarn("graphql upstream partial answer", { organizationId, operation: operation.name, errors: answer.errors.length });
    return answer;
  } catch (error) {
    if (timedOut) {
      logWarn("graphql upstream timeout", { organizationId, operation: operation.name, timeoutMs: limits.timeoutMs });
      throw new GatewayFailure("timeout", `upstream timed out after ${formatSeconds(limits.timeoutMs)} s`, { timeoutMs: limits.timeoutMs });
    }
    if (error instanceof GatewayFailure) {
      logWarn("graphql upstream failure", { organizationId, operation: operation.name, reason: error.message.slice(0, 120) });
      throw error;
    }
    if (error instanceof TooLarge) {
      throw new GatewayFailure("upstream-error", `The order API answer is larger than the ${limits.maxResponseBytes} bytes Arbiter accepts. Ask for fewer results (e.g. a smaller limit).`);
    }
    if (signal?.aborted) throw new GatewayFailure("error", "The request was cancelled before the order API answered.");
    logWarn("graphql upstream unreachable", { organizationId, operation: operation.name, error: error instanceof Error ? error.name : "unknown" });
    throw new GatewayFailure("upstream-error", "Could not reach the order API (network error). Retry later; if it keeps failing, tell the operator.");
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onCancel);
  }
}
