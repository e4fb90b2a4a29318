// The catalog (and every tool's listing) is prepared while the isolate starts, not by its first request:
// src/index.ts calls prepareCatalog (src/mcp/deployment-catalog.ts) from its module scope. Nothing else calls it, so
// loading the entry module is what this checks, whatever other test files of this isolate built before.
import { describe, expect, it } from "vitest";
import { catalogState } from "../../../src/mcp/deployment-catalog";

describe("the catalog at start-up", () => {
  it("is prepared and built by loading the Worker's entry module, before any request", async () => {
    await import("../../../src/index");
    expect(catalogState()).toEqual({ prepared: true, built: true });
  });
});
