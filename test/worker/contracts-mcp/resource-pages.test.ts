/**
 * resources/list pages (src/mcp/resource-list.ts): the first page is what the list always answered (the fixed
 * resources and up to 200 entries of each template), and a `nextCursor` leads to the rest, in both protocol eras
 * alike. A cursor the server did not write is refused with -32602.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { RESOURCES_PER_TEMPLATE_PAGE } from "../../../src/mcp/resource-list";
import { mcpPrincipal } from "../harness";
import { initializeSession, mcpPost, modernPost, readRpc } from "../helpers";

/** Contract versions per project: as many as the list names of one project, so few projects fill a page. */
const VERSIONS = 10;
/** One project more than a page holds. */
const PROJECTS = RESOURCES_PER_TEMPLATE_PAGE / VERSIONS + 1;
const project = (i: number) => `paged-${String(i).padStart(3, "0")}`;
const caller = mcpPrincipal("ana", "contracts.read");

type Lane = (params: Record<string, unknown>) => Promise<Record<string, any>>;

async function sessionLane(): Promise<Lane> {
  const sessionId = await initializeSession(caller);
  let id = 10;
  return async (params) => {
    const response = await mcpPost(
      caller,
      { jsonrpc: "2.0", id: ++id, method: "resources/list", params },
      { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" },
    );
    return (await readRpc(response)).find((message) => message.id === id) ?? {};
  };
}

const statelessLane: Lane = async (params) => {
  const response = await modernPost(caller, "resources/list", params, {}, 7);
  return (await readRpc(response)).find((message) => message.id === 7) ?? {};
};

/** Every page from the first, following nextCursor: the URIs of each page. */
async function allPages(lane: Lane): Promise<string[][]> {
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const answer = await lane(cursor === undefined ? {} : { cursor });
    expect(answer.error).toBeUndefined();
    pages.push(answer.result.resources.map((resource: { uri: string }) => resource.uri));
    cursor = answer.result.nextCursor;
  } while (cursor !== undefined && pages.length < 10);
  expect(cursor).toBeUndefined();
  return pages;
}

beforeAll(async () => {
  // More contract versions than a page lists, as rows of acme's organization store (its projects from before the
  // split): VERSIONS of each project, all of which the contract template lists.
  await runInDurableObject(env.CONTRACT_STORE.get(env.CONTRACT_STORE.idFromName("acme")), async (_instance, state) => {
    const at = new Date().toISOString();
    for (let i = 0; i < PROJECTS; i++) {
      state.storage.sql.exec(
        "INSERT INTO projects (name, created_at, created_by, active_contract_id) VALUES (?, ?, 'ana', NULL)",
        project(i),
        at,
      );
      for (let version = 1; version <= VERSIONS; version++)
        state.storage.sql.exec(
          `INSERT INTO contracts (project, version, label, content_hash, size, format, openapi_version, operation_count,
             uploaded_by, uploaded_at) VALUES (?, ?, NULL, ?, 100, 'json', '3.1.0', 1, 'ana', ?)`,
          project(i),
          version,
          "0".repeat(64),
          at,
        );
    }
  });
});

describe("resources/list pages", () => {
  /** Each era's pages, as its first test read them: the eras must answer the same. */
  const pagesByEra = new Map<string, string[][]>();
  for (const [era, lane] of [
    ["2025-11-25 session", sessionLane],
    ["2026-07-28 stateless", async () => statelessLane],
  ] as const) {
    it(`lists every contract over pages with nextCursor, the first page as before (${era})`, async () => {
      const pages = await allPages(await lane());
      pagesByEra.set(era, pages);
      expect(pages.length).toBe(2);
      const contracts = (uris: string[]) =>
        uris.filter((uri) => /^spec:\/\/projects\/paged-\d+\/contracts\/\d+$/.test(uri));
      expect(contracts(pages[0]!)).toHaveLength(RESOURCES_PER_TEMPLATE_PAGE);
      expect(pages[0]).toContain("spec://active/contract");
      expect(contracts(pages[1]!).sort()).toEqual(
        Array.from(
          { length: VERSIONS },
          (_, v) => `spec://projects/${project(PROJECTS - 1)}/contracts/${v + 1}`,
        ).sort(),
      );
      expect(pages[1]).not.toContain("spec://active/contract");
      const all = pages.flat();
      expect(new Set(all).size).toBe(all.length);
      expect(contracts(all)).toHaveLength(PROJECTS * VERSIONS);
    });

    it(`refuses a cursor it did not write with -32602, saying what to pass (${era})`, async () => {
      const answer = await lane();
      const forged = btoa(JSON.stringify({ after: { "not-a-template": "x" } })).replace(/=+$/, "");
      for (const cursor of ["not a cursor", "AAAA", forged, "x".repeat(5_000)]) {
        const refused = await answer({ cursor });
        expect(refused.error?.code, cursor.slice(0, 20)).toBe(-32602);
        expect(refused.error?.message).toContain("Invalid cursor: pass the nextCursor of the previous resources/list");
      }
    });
  }

  it("answers the same pages in both eras", () => {
    expect(pagesByEra.size).toBe(2);
    const [session, stateless] = [...pagesByEra.values()];
    expect(stateless).toEqual(session);
  });
});
