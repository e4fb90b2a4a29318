/**
 * The gateway: sends one allowlisted operation to an upstream and turns the answer into data or a safe
 * GatewayFailure. User input travels only as `variables`; the query text is the operation file's. The timeout
 * aborts the upstream request (the upstream sees its connection closed); the answer is read with a size
 * cap; HTTP errors, redirects (never followed), malformed bodies, network failures and GraphQL errors become
 * messages that name what happened without upstream internals (no bodies, upstream error text, stack traces or
 * URLs). The upstream's error text goes nowhere: the operator's log gets each error's class and path (upstream-errors.ts).
 */
import { GatewayFailure } from "./errors";
import { currentSpan, withSpan } from "../lib/telemetry/span";
import { logWarn } from "../lib/log";
import type { GraphqlOperation } from "./operation-allowlist";
import type { ResolvedUpstream } from "./upstream";
import { describeUpstreamErrors, splitUpstreamErrors, type UpstreamError } from "./upstream-errors";

export interface UpstreamAnswer {
  data: Record<string, unknown>;
  /** Non-empty for partial answers: failed paths with fixed messages, safe to show. */
  errors: UpstreamError[];
  /** The same errors as class and path (`FORBIDDEN at orderById`), never their text: for the operator's log. */
  loggedErrors: string[];
}

export interface GatewayLimits {
  timeoutMs: number;
  maxResponseBytes: number;
}

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

/** The GraphQL `errors` of a non-2xx body, or undefined when it is not a GraphQL result. */
function graphqlErrorsIn(body: string): ReturnType<typeof splitUpstreamErrors> | undefined {
  try {
    const errors = splitUpstreamErrors((JSON.parse(body) as { errors?: unknown } | null)?.errors);
    return errors.shown.length ? errors : undefined;
  } catch {
    return undefined;
  }
}

function httpFailure(status: number, body: string): GatewayFailure {
  // GraphQL over HTTP answers request errors (the upstream refusing the operation) with 4xx and `errors`: 400 and
  // 422 name their classes and paths, other statuses keep their own message. Their text goes nowhere.
  const errors = status >= 400 && status <= 499 ? graphqlErrorsIn(body) : undefined;
  if (errors && (status === 400 || status === 422)) {
    return new GatewayFailure(
      "upstream-error",
      `The order API refused the operation (HTTP ${status}): ${describeUpstreamErrors(errors.shown)}. Its schema may not match policies/graphql/schema.graphql; tell the operator.`,
      {},
      errors.logged,
    );
  }
  return statusFailure(status, errors?.logged ?? []);
}

function statusFailure(status: number, detail: readonly string[]): GatewayFailure {
  const failure = (message: string) => new GatewayFailure("upstream-error", message, {}, detail);
  if (status >= 300 && status <= 399) {
    return failure(
      `The order API answered with a redirect (HTTP ${status}), which Arbiter does not follow. The operator must set this organization's upstream endpoint to the final URL.`,
    );
  }
  if (status === 401 || status === 403)
    return failure(
      `The order API refused Arbiter's credentials (HTTP ${status}). The operator must check this organization's upstream credential.`,
    );
  if (status === 404)
    return failure(
      "The order API endpoint was not found (HTTP 404). The operator must check this organization's upstream endpoint.",
    );
  if (status === 429) return failure("The order API is limiting requests (HTTP 429). Retry in a moment.");
  if (status >= 500)
    return failure(`The order API failed (HTTP ${status}). Retry later; if it keeps failing, tell the operator.`);
  return failure(`The order API answered HTTP ${status}, which is not a GraphQL result.`);
}

function interpret(status: number, body: string): UpstreamAnswer {
  if (status < 200 || status > 299) throw httpFailure(status, body);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new GatewayFailure(
      "upstream-error",
      "The order API answered with a body that is not valid JSON. Retry later; if it keeps failing, tell the operator.",
    );
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new GatewayFailure(
      "upstream-error",
      "The order API answered JSON that is not a GraphQL result (no data, no errors).",
    );
  }
  const result = parsed as { data?: unknown; errors?: unknown };
  const errors = splitUpstreamErrors(result.errors);
  const hasData = result.data !== null && typeof result.data === "object" && !Array.isArray(result.data);
  if (!hasData) {
    if (errors.shown.length) {
      throw new GatewayFailure(
        "upstream-error",
        `The order API reported errors and no data: ${describeUpstreamErrors(errors.shown)}. Retry later; if it keeps failing, tell the operator.`,
        {},
        errors.logged,
      );
    }
    throw new GatewayFailure(
      "upstream-error",
      "The order API answered JSON that is not a GraphQL result (no data, no errors).",
    );
  }
  return { data: result.data as Record<string, unknown>, errors: errors.shown, loggedErrors: errors.logged };
}

/**
 * Runs `operation` on `upstream`. `signal` is the caller's cancellation (the MCP request); the timeout is
 * the operation's. Both abort the upstream request itself.
 */
export function executeOnUpstream(
  upstream: ResolvedUpstream,
  operation: Pick<GraphqlOperation, "name" | "upstreamQuery">,
  variables: Record<string, unknown>,
  limits: GatewayLimits,
  signal: AbortSignal | undefined,
  organizationId: string,
): Promise<UpstreamAnswer> {
  // A traced call sends its span upstream as W3C traceparent, so the upstream's own spans join the trace.
  return withSpan(
    "graphql.upstream",
    "client",
    { "graphql.operation.name": operation.name, "http.request.method": "POST" },
    async (span) => {
      const traced = span
        ? { ...upstream, headers: { ...upstream.headers, traceparent: span.traceparent() } }
        : upstream;
      try {
        return await exchange(traced, operation, variables, limits, signal, organizationId);
      } catch (error) {
        span?.set({ "error.type": error instanceof GatewayFailure ? error.outcome : "error" });
        throw error;
      }
    },
  );
}

async function exchange(
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
  const aborted = new Promise<never>((_, reject) =>
    controller.signal.addEventListener("abort", () => reject(controller.signal.reason), { once: true }),
  );
  aborted.catch(() => undefined);

  try {
    const request = new Request(upstream.endpoint, {
      method: "POST",
      headers: upstream.headers,
      body: JSON.stringify({ query: operation.upstreamQuery, operationName: operation.name, variables }),
      signal: controller.signal,
      // A redirect is an upstream error, never followed: the target (another host, a metadata address) would
      // receive the operation and the organization's credential.
      redirect: "manual",
    });
    const exchange = (async () => {
      const response = await upstream.fetcher(request);
      currentSpan()?.set({ "http.response.status_code": response.status });
      return { status: response.status, body: await readCapped(response, limits.maxResponseBytes) };
    })();
    exchange.catch(() => undefined);
    const { status, body } = await Promise.race([exchange, aborted]);
    const answer = interpret(status, body);
    if (answer.errors.length) {
      logWarn("graphql upstream partial answer", {
        organizationId,
        operation: operation.name,
        errors: answer.errors.length,
        upstreamErrors: answer.loggedErrors,
      });
    }
    return answer;
  } catch (error) {
    if (timedOut) {
      logWarn("graphql upstream timeout", { organizationId, operation: operation.name, timeoutMs: limits.timeoutMs });
      throw new GatewayFailure("timeout", `upstream timed out after ${formatSeconds(limits.timeoutMs)} s`, {
        timeoutMs: limits.timeoutMs,
      });
    }
    if (error instanceof GatewayFailure) {
      logWarn("graphql upstream failure", {
        organizationId,
        operation: operation.name,
        reason: error.message.slice(0, 120),
        ...(error.operatorDetail.length ? { upstreamErrors: error.operatorDetail } : {}),
      });
      throw error;
    }
    if (error instanceof TooLarge) {
      throw new GatewayFailure(
        "upstream-error",
        `The order API answer is larger than the ${limits.maxResponseBytes} bytes Arbiter accepts. Ask for fewer results (e.g. a smaller limit).`,
      );
    }
    if (signal?.aborted) throw new GatewayFailure("error", "The request was cancelled before the order API answered.");
    logWarn("graphql upstream unreachable", {
      organizationId,
      operation: operation.name,
      error: error instanceof Error ? error.name : "unknown",
    });
    throw new GatewayFailure(
      "upstream-error",
      "Could not reach the order API (network error). Retry later; if it keeps failing, tell the operator.",
    );
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onCancel);
  }
}
