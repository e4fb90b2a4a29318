/** Validation messages in plain words, one `limit` rule on every list route, and YAML errors that show the line. */
import { describe, expect, it, beforeAll } from "vitest";
import { z } from "zod";
import { parseOpenApiDocument } from "../../../src/engine/load/document";
import { humaniseIssues } from "../../../src/lib/humanise";
import { callJson } from "../contracts-api/api-helpers";
import { restPrincipal, type Caller } from "../harness";
import { ordersContract } from "../contracts-api/fixtures";

function issuesOf(schema: z.ZodType, value: unknown): z.ZodError {
  const parsed = schema.safeParse(value);
  if (parsed.success) throw new Error("expected a refusal");
  return parsed.error;
}

describe("humaniseIssues", () => {
  const schema = z
    .object({
      commit: z.string().min(1).regex(/^\S+$/, "no spaces or control characters"),
      count: z.number().int().min(1).max(10).optional(),
      status: z.enum(["PAID", "PENDING"]).optional(),
      name: z.string().min(1).optional(),
    })
    .strict();

  it("says a missing field is required, and how to pass a query parameter", () => {
    expect(humaniseIssues(issuesOf(schema, {}))).toBe("commit is required");
    expect(humaniseIssues(issuesOf(schema, {}), { where: "query", placeholders: { commit: "<sha>" } })).toBe(
      "commit is required: pass ?commit=<sha>",
    );
  });

  it("names the expected type, bounds and options instead of zod's wording", () => {
    const message = humaniseIssues(issuesOf(schema, { commit: 5, count: 0, status: "X", name: "" }));
    expect(message).toBe(
      "commit must be a string; count must be at least 1; status must be one of PAID, PENDING; name must not be empty",
    );
    expect(message).not.toMatch(/Invalid input|expected string|Too small/);
    expect(humaniseIssues(issuesOf(schema, { commit: "a", count: 11 }))).toBe("count must be at most 10");
    expect(humaniseIssues(issuesOf(schema, { commit: "a", extra: 1 }))).toBe(
      "(arguments) has unknown field extra: remove it",
    );
  });

  it("keeps a message the schema's author wrote", () => {
    expect(humaniseIssues(issuesOf(schema, { commit: "a b" }), { where: "query" })).toBe(
      "commit: no spaces or control characters; pass ?commit=<value>",
    );
  });
});

describe("REST validation messages", () => {
  let developer: Caller;
  let admin: Caller;
  beforeAll(async () => {
    developer = restPrincipal("ana", "contracts.read contracts.write snapshots.write");
    admin = restPrincipal("ana", "keys.admin clients.admin audit.read contracts.read");
    expect(
      (await callJson(developer, "POST", "/projects/plain/contracts", JSON.stringify(ordersContract()))).status,
    ).toBe(201);
  });

  it("a snapshot without ?commit= says so in plain words", async () => {
    const { status, body } = await callJson(
      developer,
      "POST",
      "/projects/plain/snapshots",
      JSON.stringify(ordersContract()),
    );
    expect(status).toBe(400);
    expect(body.code).toBe("invalid_query");
    expect(body.detail).toBe("Invalid query parameters: commit is required: pass ?commit=<sha>.");
  });

  it.each([
    "/projects",
    "/keys",
    "/clients",
    "/audit/events",
    "/projects/plain/snapshots",
    "/projects/plain/contracts",
  ])("%s refuses limit=0 and limit=abc the same way", async (path) => {
    for (const value of ["0", "abc", "201"]) {
      const { status, body } = await callJson(admin, "GET", `${path}?limit=${value}`);
      expect(status, `${path}?limit=${value}`).toBe(400);
      expect(body.code).toBe("invalid_query");
      expect(body.detail).toContain(`limit must be an integer from 1 to 200, got "${value}"`);
    }
    expect((await callJson(admin, "GET", `${path}?limit=1`)).status).toBe(200);
  });

  it("a list that does not page applies limit and refuses before", async () => {
    expect(
      (await callJson(developer, "POST", "/projects/plain-two/contracts", JSON.stringify(ordersContract()))).status,
    ).toBe(201);
    const { body } = await callJson(admin, "GET", "/projects?limit=1");
    expect(body.projects).toHaveLength(1);
    const refused = await callJson(admin, "GET", "/projects?before=3");
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toContain("this list is not paged");
  });
});

describe("broken YAML", () => {
  it("a flow mapping left open on line 15 is reported at line 15, with the line's text", () => {
    const lines = [
      "openapi: 3.1.0",
      "info:",
      "  title: Orders",
      "  version: '1'",
      "paths:",
      "  /orders:",
      "    get:",
      "      responses:",
      "        '200':",
      "          description: ok",
      "  /orders/{id}:",
      "    get:",
      "      responses:",
      "        '200':",
      "          content: { application/json: { schema: { type: string }",
      "          description: ok",
    ];
    const parsed = parseOpenApiDocument(`${lines.join("\n")}\n`);
    if (parsed.ok) throw new Error("expected a refusal");
    const message = parsed.problems[0]!.message;
    expect(message).toMatch(
      /^not valid YAML at line 15, column 20: the flow mapping "\{" opened here is never closed: add its "\}"/,
    );
    expect(message).toContain("Line 15:           content: { application/json: { schema: { type: string }");
    expect(message).not.toMatch(/:$/);
  });

  it("other YAML errors name the line and show it", () => {
    const parsed = parseOpenApiDocument("openapi: 3.1.0\ninfo:\n  title: a\n  title: b\n");
    if (parsed.ok) throw new Error("expected a refusal");
    expect(parsed.problems[0]!.message).toMatch(/^not valid YAML at line 4, column \d+: .*Line 4: {3}title: b$/);
  });
});
