/**
 * Telemetry configuration from the Worker's variables: off unless OTEL_EXPORTER_OTLP_ENDPOINT is set.
 *  - OTEL_EXPORTER_OTLP_ENDPOINT (var): the OTLP/HTTP base URL; traces go to `<base>/v1/traces`, metrics to
 *    `<base>/v1/metrics` (the OpenTelemetry specification's rule for the base endpoint).
 *  - OTEL_EXPORTER_OTLP_HEADERS (secret): `name=value` pairs separated by commas (e.g. an API key header).
 *  - OTEL_SERVICE_NAME (var, optional): the `service.name` resource attribute (default "arbiter").
 */
export interface TelemetryEnv {
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  OTEL_EXPORTER_OTLP_HEADERS?: string;
  OTEL_SERVICE_NAME?: string;
}

export interface TelemetryConfig {
  tracesUrl: string;
  metricsUrl: string;
  headers: Record<string, string>;
  serviceName: string;
}

/** A header value, percent-decoded as the format says; one that is not percent-encoding is kept as written. */
function percentDecoded(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

function headersOf(text: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of (text ?? "").split(",")) {
    const at = pair.indexOf("=");
    if (at <= 0) continue;
    const name = pair.slice(0, at).trim();
    const value = pair.slice(at + 1).trim();
    if (/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) && value) headers[name] = percentDecoded(value);
  }
  return headers;
}

const cache = new WeakMap<object, TelemetryConfig | null>();

/** The configuration, or null when telemetry is off (no endpoint, or one that is not an http(s) URL). */
export function telemetryConfigOf(env: TelemetryEnv): TelemetryConfig | null {
  const cached = cache.get(env);
  if (cached !== undefined) return cached;
  let config: TelemetryConfig | null = null;
  const endpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (endpoint) {
    try {
      const base = new URL(endpoint);
      if (base.protocol === "https:" || base.protocol === "http:") {
        const root = base.href.replace(/\/+$/, "");
        config = {
          tracesUrl: `${root}/v1/traces`,
          metricsUrl: `${root}/v1/metrics`,
          headers: headersOf(env.OTEL_EXPORTER_OTLP_HEADERS),
          serviceName: env.OTEL_SERVICE_NAME?.trim() || "arbiter",
        };
      }
    } catch {
      config = null;
    }
  }
  cache.set(env, config);
  return config;
}
