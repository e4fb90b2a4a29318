import { describe, expect, it, vi } from "vitest";
import { logError, redactSecrets } from "../../src/lib/log";

describe("structured logs", () => {
  it("redacts credentials that error messages carry", () => {
    expect(redactSecrets("connect failed password=hunter2 host=db")).toBe("connect failed password=[redacted] host=db");
    expect(redactSecrets("Authorization: Bearer abc.def.ghi")).not.toContain("abc.def.ghi");
    expect(redactSecrets("GET https://user:s3cret@example.com/x?token=t0k&x=1")).not.toMatch(/s3cret|t0k/);
    expect(redactSecrets('{"api_key":"k-123"}')).not.toContain("k-123");
  });

  it("writes one JSON line with the error reduced to name and redacted message", () => {
    const spy = vi.spyOn(console, "error").mockImplementation(() => {});
    logError("tool handler threw", { tool: "t", error: new Error("boom token=abc123\n    at secret.ts:1") });
    const line = spy.mock.calls[0]![0] as string;
    spy.mockRestore();
    const parsed = JSON.parse(line);
    expect(parsed).toMatchObject({
      level: "error",
      message: "tool handler threw",
      tool: "t",
      error: { name: "Error" },
    });
    expect(line).not.toContain("abc123");
    expect(line).not.toContain("secret.ts");
  });
});
