/**
 * The verdict form (src/contracts/store/verdict-form.ts) is written only when JSON carries the document exactly:
 * numbers JSON cannot write (Infinity from `1e999`, -0) and YAML aliases (one node reached twice) leave a
 * contract without a form, read from its bytes instead. What it writes is ASCII and decodes to the same value.
 */
import { describe, expect, it } from "vitest";
import { parseOpenApiDocument } from "../../../src/engine/load/document";
import { decodeVerdictForm, encodeVerdictForm } from "../../../src/contracts/store/verdict-form";
import type { OpenApiDocument } from "../../../src/engine/types";

function parsed(text: string): { document: OpenApiDocument; format: "json" | "yaml" } {
  const result = parseOpenApiDocument(text);
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return { document: result.document, format: result.format };
}

const json = (maximum: string, title = "Orders") =>
  `{"openapi":"3.1.0","info":{"title":${JSON.stringify(title)},"version":"1"},"paths":{"/n":{"get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"number","maximum":${maximum}}}}}}}}}}`;

describe("verdict form", () => {
  it("is ASCII and decodes to the same document, non-ASCII text and key order included", () => {
    const { document, format } = parsed(json("10", "Bestellungen – “Ünïcødé” 🚚"));
    const form = encodeVerdictForm(document, format)!;
    expect(form.every((byte) => byte < 0x80)).toBe(true);
    const decoded = decodeVerdictForm(form);
    expect(JSON.stringify(decoded)).toBe(JSON.stringify(document));
    expect(decoded!.info).toEqual({ title: "Bestellungen – “Ünïcødé” 🚚", version: "1" });
  });

  it("is not written for numbers JSON cannot write (1e999 is Infinity, -0 would come back as 0)", () => {
    for (const maximum of ["1e999", "-0"]) {
      const { document, format } = parsed(json(maximum));
      expect(encodeVerdictForm(document, format), maximum).toBeNull();
    }
  });

  it("is not written for YAML whose aliases share a node (JSON would make two copies)", () => {
    const yaml = [
      "openapi: 3.1.0",
      "info: {title: Orders, version: '1'}",
      "paths:",
      "  /a:",
      "    get:",
      "      responses:",
      "        '200': &ok {description: ok, content: {application/json: {schema: {type: string}}}}",
      "  /b:",
      "    get:",
      "      responses:",
      "        '200': *ok",
    ].join("\n");
    const { document, format } = parsed(yaml);
    expect(format).toBe("yaml");
    expect(encodeVerdictForm(document, format)).toBeNull();
    const plain = parsed(yaml.replace("&ok ", "").replace("*ok", "{description: ok}"));
    expect(encodeVerdictForm(plain.document, plain.format)).not.toBeNull();
  });

  it("refuses bytes that are not a stored form", () => {
    expect(decodeVerdictForm(new TextEncoder().encode("[1,2]"))).toBeNull();
    expect(decodeVerdictForm(new TextEncoder().encode("{not json"))).toBeNull();
  });
});
