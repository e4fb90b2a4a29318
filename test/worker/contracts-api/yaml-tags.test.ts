/**
 * YAML tags the parser does not know (`!!js/function`, `!Ref`) over the REST upload: the document is accepted with
 * the tagged values read as plain strings, and the Worker logs nothing about them. The yaml package used to warn
 * once per unknown tag per upload, with a stack trace (console.warn, or process.emitWarning under Node).
 */
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { parseOpenApiDocument } from "../../../src/engine/load/document";
import { callJson } from "./api-helpers";
import { restPrincipal, type Caller } from "../harness";

const TAGGED = `openapi: 3.0.3
info:
  title: Tagged
  version: "1"
x-handler: !!js/function "function () { return process.env }"
x-template: !Ref SomeResource
x-tagged-map: !custom
  key: value
paths:
  /things:
    get:
      operationId: listThings
      responses:
        "200":
          description: !!js/undefined ok
`;

let developer: Caller;

beforeAll(async () => {
  developer = restPrincipal("dev", "contracts.read contracts.write snapshots.write");
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe("YAML with unknown tags", () => {
  it("reads tagged values as plain data", () => {
    const parsed = parseOpenApiDocument(TAGGED);
    expect(parsed).toMatchObject({ ok: true, format: "yaml", operationCount: 1 });
    if (!parsed.ok) return;
    expect(parsed.document["x-handler"]).toBe("function () { return process.env }");
    expect(parsed.document["x-template"]).toBe("SomeResource");
    expect(parsed.document["x-tagged-map"]).toEqual({ key: "value" });
  });

  it("is accepted over REST without a warning in the log", async () => {
    const warn = vi.spyOn(console, "warn");
    const error = vi.spyOn(console, "error");
    const emitted =
      typeof process !== "undefined" && typeof process.emitWarning === "function"
        ? vi.spyOn(process, "emitWarning")
        : undefined;
    const response = await callJson(developer, "POST", "/projects/tagged/contracts", TAGGED, {
      "Content-Type": "application/yaml",
    });
    expect(response.status).toBe(201);
    expect(response.body.contract).toMatchObject({ format: "yaml", operationCount: 1, openapiVersion: "3.0.3" });
    expect(warn).not.toHaveBeenCalled();
    expect(error).not.toHaveBeenCalled();
    if (emitted) expect(emitted).not.toHaveBeenCalled();
  });
});
