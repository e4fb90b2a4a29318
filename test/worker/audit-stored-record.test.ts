// The audit store's check of each record (src/audit/stored-record.ts): what it accepts, and what it names when not.
import { describe, expect, it } from "vitest";
import type { AuditRecord } from "../../src/audit/record";
import { storedRecordProblem } from "../../src/audit/stored-record";

const good: AuditRecord = {
  correlationId: "c-1",
  time: "2026-12-01T22:00:00.123Z",
  organizationId: "acme",
  userId: "ana",
  clientId: "",
  kind: "tool",
  target: "whoami",
  argumentsDigest: "",
  durationMs: 0,
  outcome: "ok",
  reason: "",
};

describe("storedRecordProblem", () => {
  it("accepts a record as the core builds it, and times with an offset or whole seconds", () => {
    expect(storedRecordProblem(good)).toBeUndefined();
    expect(storedRecordProblem({ ...good, time: "2026-12-01T23:00:00+01:00" })).toBeUndefined();
    expect(storedRecordProblem({ ...good, time: "2026-12-01T22:00Z" })).toBeUndefined();
  });

  it.each([
    [{ time: "yesterday" }, "time: must be an ISO 8601 date and time with Z or an offset"],
    [{ time: "2026-12-01T22:00:00" }, "time: must be an ISO 8601 date and time with Z or an offset"],
    [{ time: "2026-13-45T22:00:00Z" }, "time: must be an ISO 8601 date and time with Z or an offset"],
    [
      { outcome: "fine" },
      "outcome: must be one of ok, invalid-input, rejected-by-policy, rate-limited, upstream-error, timeout, error",
    ],
    [{ kind: "batch" }, "kind: must be one of tool, route, oauth, resource, prompt"],
    [{ correlationId: "" }, "correlationId: must not be empty"],
    [{ organizationId: 7 }, "organizationId: must be a string"],
    [{ target: "x".repeat(301) }, "target: must have at most 300 characters"],
    [{ reason: "r".repeat(601) }, "reason: must have at most 600 characters"],
    [{ durationMs: -1 }, "durationMs: must be a whole number of milliseconds, 0 or more"],
    [{ durationMs: 1.5 }, "durationMs: must be a whole number of milliseconds, 0 or more"],
  ])("refuses %j with %s", (change, problem) => {
    expect(storedRecordProblem({ ...good, ...change })).toBe(problem);
  });

  it("refuses what is not an object", () => {
    for (const value of [null, "record", 3, []]) expect(storedRecordProblem(value)).toBe("record: must be an object");
  });
});
