// The telemetry configuration read from the Worker's variables (src/telemetry/config.ts).
import { describe, expect, it } from "vitest";
import { telemetryConfigOf } from "../../../src/telemetry/config";

const ENDPOINT = "https://collector.example/otlp/";

describe("telemetryConfigOf", () => {
  it("is off without an endpoint, or with one that is not an http(s) URL", () => {
    expect(telemetryConfigOf({})).toBeNull();
    expect(telemetryConfigOf({ OTEL_EXPORTER_OTLP_ENDPOINT: "ftp://collector.example" })).toBeNull();
    expect(telemetryConfigOf({ OTEL_EXPORTER_OTLP_ENDPOINT: "not a url" })).toBeNull();
  });

  it("sends traces and metrics under the base endpoint, with the service name", () => {
    const config = telemetryConfigOf({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_SERVICE_NAME: " billing " });
    expect(config).toMatchObject({
      tracesUrl: "https://collector.example/otlp/v1/traces",
      metricsUrl: "https://collector.example/otlp/v1/metrics",
      serviceName: "billing",
    });
  });

  it("reads the headers' name=value pairs, percent-decoded, skipping pairs without a name or a value", () => {
    const config = telemetryConfigOf({
      OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT,
      OTEL_EXPORTER_OTLP_HEADERS: "Authorization=Basic%20YTpi, x-team = acme ,=nameless,empty=,bad name=1",
    });
    expect(config?.headers).toEqual({ Authorization: "Basic YTpi", "x-team": "acme" });
  });

  it("keeps a value that is not percent-encoding as written, rather than turning telemetry off", () => {
    const config = telemetryConfigOf({
      OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT,
      OTEL_EXPORTER_OTLP_HEADERS: "x-api-key=k3y%zz%,x-other=ok",
    });
    expect(config?.headers).toEqual({ "x-api-key": "k3y%zz%", "x-other": "ok" });
  });
});
