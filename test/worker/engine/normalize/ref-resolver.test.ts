/**
 * The `$ref` resolver: a chain of pure references is followed once however it is entered (one lookup per link,
 * counted on the document itself), chains past MAX_REF_CHAIN_LINKS are refused naming the limit, and cycles get
 * a bounded message. Through parseOpenApiDocument: the same limits, and the limit on $refs per document.
 */
import { describe, expect, it } from "vitest";
import { parseOpenApiDocument } from "../../../../src/engine/load/document";
import {
  MAX_DOCUMENT_REFERENCES,
  MAX_REF_CHAIN_LINKS,
  RefResolver,
} from "../../../../src/engine/normalize/ref-resolver";

const ref = (index: number) => `#/components/schemas/S${index}`;

/** S0 -> S1 -> ... -> S(links) -> a string schema: S0 goes through `links` references to references. */
function chain(links: number): Record<string, unknown> {
  const schemas: Record<string, unknown> = {};
  for (let index = 0; index < links; index++) schemas[`S${index}`] = { $ref: ref(index + 1) };
  schemas[`S${links}`] = { type: "string" };
  return { components: { schemas } };
}

/** The document behind a proxy that counts lookups of `components`: one per pointer the resolver follows. */
function counted(document: Record<string, unknown>) {
  const counter = { lookups: 0 };
  const root = new Proxy(document, {
    get(target, key, receiver) {
      if (key === "components") counter.lookups++;
      return Reflect.get(target, key, receiver);
    },
  });
  return { root, counter };
}

function openapi(extra: Record<string, unknown>) {
  return JSON.stringify({
    openapi: "3.0.3",
    info: { title: "Chain", version: "1" },
    paths: {
      "/x": {
        get: {
          responses: { "200": { description: "ok", content: { "application/json": { schema: { $ref: ref(0) } } } } },
        },
      },
    },
    ...extra,
  });
}

describe("RefResolver", () => {
  it("follows a chain once: resolving every link of a 30-link chain costs one lookup per link, not 30*31/2", () => {
    const links = 30;
    const { root, counter } = counted(chain(links));
    const resolver = new RefResolver(root);
    for (let index = links; index >= 0; index--)
      expect(resolver.resolveRef(ref(index))).toMatchObject({ ok: true, value: { type: "string" } });
    // From the far end each link meets the one resolved before it; now from the start, once more.
    const fresh = counted(chain(links));
    const forward = new RefResolver(fresh.root);
    for (let index = 0; index <= links; index++) expect(forward.resolveRef(ref(index)).ok).toBe(true);
    expect(counter.lookups).toBe(links + 1);
    expect(fresh.counter.lookups).toBe(links + 1);
  });

  it(`accepts ${MAX_REF_CHAIN_LINKS} references to references and refuses one more, naming the limit`, () => {
    expect(new RefResolver(chain(MAX_REF_CHAIN_LINKS)).resolveRef(ref(0)).ok).toBe(true);
    const tooLong = new RefResolver(chain(MAX_REF_CHAIN_LINKS + 1));
    expect(tooLong.resolveRef(ref(0))).toEqual({
      ok: false,
      reason: `$ref "${ref(0)}" goes through more than ${MAX_REF_CHAIN_LINKS} references to references before it reaches a value (at most ${MAX_REF_CHAIN_LINKS} are allowed): point it at the target directly`,
    });
    // The rest of the same chain is short enough.
    expect(tooLong.resolveRef(ref(1)).ok).toBe(true);
  });

  it("names a long cycle by its start and end, and every reference leading into it fails the same way", () => {
    const schemas: Record<string, unknown> = { Entry: { $ref: ref(0) } };
    for (let index = 0; index < 40; index++) schemas[`S${index}`] = { $ref: ref((index + 1) % 40) };
    const resolver = new RefResolver({ components: { schemas } });
    const entry = resolver.resolveRef("#/components/schemas/Entry");
    expect(entry.ok).toBe(false);
    const reason = (entry as { reason: string }).reason;
    expect(reason).toBe(
      `$ref cycle: ${[0, 1, 2, 3, 4, 5].map(ref).join(" -> ")} -> … 31 more … -> ${[37, 38, 39, 0].map(ref).join(" -> ")}`,
    );
    expect(resolver.resolveRef(ref(7))).toEqual({ ok: false, reason });
  });
});

describe("reference limits of an uploaded document", () => {
  it("refuses a 5,000-link chain with a problem at each link naming the chain limit", () => {
    const parsed = parseOpenApiDocument(openapi(chain(5000)));
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.problems[0]).toEqual({
      path: "/paths/~1x/get/responses/200/content/application~1json/schema/$ref",
      message: expect.stringContaining(`more than ${MAX_REF_CHAIN_LINKS} references to references`),
    });
    expect(parsed.problems.at(-1)?.message).toMatch(/^\d+ more problems not listed$/);
  });

  it(`refuses a document with more than ${MAX_DOCUMENT_REFERENCES} $refs, naming the limit, and accepts one with exactly that many`, () => {
    const target = { $ref: "#/components/schemas/Leaf" };
    const many = (count: number) =>
      openapi({
        components: {
          schemas: {
            S0: { type: "object" },
            Leaf: { type: "string" },
            Wide: { allOf: Array.from({ length: count - 1 }, () => target) },
          },
        },
      });
    expect(parseOpenApiDocument(many(MAX_DOCUMENT_REFERENCES)).ok).toBe(true);
    const refused = parseOpenApiDocument(many(MAX_DOCUMENT_REFERENCES + 1));
    expect(refused).toEqual({
      ok: false,
      problems: [
        {
          path: `/components/schemas/Wide/allOf/${MAX_DOCUMENT_REFERENCES - 1}/$ref`,
          message: expect.stringContaining(`more than ${MAX_DOCUMENT_REFERENCES} $refs`),
        },
      ],
    });
  });
});
