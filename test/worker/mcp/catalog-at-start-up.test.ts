// The catalog (and every tool's listing) is built while the isolate starts, not by its first request
// (src/mcp/deployment-catalog.ts prepareCatalog, called from src/index.ts's module scope). Each test loads fresh
// module instances, so what an earlier test or request in this isolate built does not count.
import { beforeEach, describe, expect, it, vi } from "vitest";

type CatalogModule = typeof import("../../../src/mcp/deployment-catalog");

async function freshCatalogModule(): Promise<CatalogModule> {
  return import("../../../src/mcp/deployment-catalog");
}

describe("the catalog at start-up", () => {
  beforeEach(() => {
    vi.resetModules();
  });

  it("is not built by loading its own module", async () => {
    const catalog = await freshCatalogModule();
    expect(catalog.catalogBuilt()).toBe(false);
  });

  it("is built by loading the Worker's entry module, before any request", async () => {
    await import("../../../src/index");
    const catalog = await freshCatalogModule();
    expect(catalog.catalogBuilt()).toBe(true);
    expect(catalog.getCatalog().tools.has("orders_search")).toBe(true);
  });
});
