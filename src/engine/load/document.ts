/**
 * Turns uploaded text into a validated OpenAPI document, or a list of what is wrong with it. JSON and YAML are
 * accepted; YAML is parsed with a small alias budget so an alias bomb ("billion laughs") is refused instead of
 * expanding into gigabytes.
 */
import { withSpan } from "../../lib/telemetry/span";
import { parse as parseYaml } from "yaml";
import { describeYamlError } from "./yaml-error";
import { checkOpenApiStructure, type DocumentCheckOptions } from "./document-checks";
import { adoptResolver } from "../normalize/normalize-document";
import { isRecord } from "../normalize/normalize-pointer";
import type { DocumentProblem, ParsedDocument } from "../types";

/** Aliases a YAML document may use; real OpenAPI documents use a handful, alias bombs need thousands. */
export const YAML_MAX_ALIAS_COUNT = 100;

function refuse(problems: DocumentProblem[]): ParsedDocument {
  return { ok: false, problems };
}

function lineAndColumn(text: string, position: number): string {
  let line = 1;
  let lineStart = 0;
  for (let index = 0; index < position && index < text.length; index++) {
    if (text.charCodeAt(index) === 10) {
      line++;
      lineStart = index + 1;
    }
  }
  return `line ${line}, column ${position - lineStart + 1}`;
}

function parseJson(text: string): { value: unknown } | { problem: string } {
  try {
    return { value: JSON.parse(text) };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const position = /position (\d+)/.exec(message);
    const where = position ? ` at ${lineAndColumn(text, Number(position[1]))}` : "";
    return { problem: `not valid JSON${where}: ${message.replace(/ in JSON at position \d+.*$/, "")}` };
  }
}

function parseYamlText(text: string): { value: unknown } | { problem: string } {
  try {
    // logLevel "error": the parser's warnings (unknown tags such as !!js/function, whose values are read as plain
    // strings, which is what an OpenAPI document means) would otherwise go to console.warn with a stack trace,
    // once per tag per upload. Errors still throw and are answered below.
    return {
      value: parseYaml(text, {
        maxAliasCount: YAML_MAX_ALIAS_COUNT,
        uniqueKeys: true,
        prettyErrors: true,
        version: "1.2",
        logLevel: "error",
      }),
    };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/alias/i.test(message)) {
      return {
        problem: `YAML uses too many aliases (at most ${YAML_MAX_ALIAS_COUNT} are allowed; alias bombs are refused): ${firstLine(message)}`,
      };
    }
    return { problem: describeYamlError(text, error) };
  }
}

function firstLine(message: string): string {
  return message.split("\n")[0] ?? message;
}

/** Parses JSON or YAML text and checks that it is an OpenAPI 3.0/3.1/3.2 document the engine can use. */
export function parseOpenApiDocument(text: string, options: DocumentCheckOptions = {}): ParsedDocument {
  return parseOpenApiSource({ text }, options);
}

/**
 * parseOpenApiDocument for a large upload: `source.text` is dropped as soon as it is parsed, and no variable here
 * holds it, so the text can be collected while the structural checks run instead of staying alive beside the
 * parsed document until the end. `decoded`, when given, makes the document's own text for the message of a JSON
 * document that `text` (then another form of it, lib/utf8.ts) did not parse.
 */
export function parseOpenApiSource(
  source: { text?: string; decoded?: () => string },
  options: DocumentCheckOptions = {},
): ParsedDocument {
  if (typeof source.text !== "string" || source.text.trim() === "") {
    return refuse([{ path: "", message: "the document is empty: send the OpenAPI document as JSON or YAML text" }]);
  }
  const format: "json" | "yaml" = /^\s*[{[]/.test(source.text) ? "json" : "yaml";
  // Engine phases are spans of a traced request (src/telemetry); untraced, withSpan only runs the function.
  let parsed = withSpan("engine.parse", "internal", { "arbiter.engine.phase": "parse" }, () =>
    format === "json" ? parseJson(source.text!) : parseYamlText(source.text!),
  );
  source.text = undefined;
  // `text` was the ASCII form of a JSON document (parse-upload.ts): its refusal is told with the document's own text.
  if ("problem" in parsed && source.decoded) parsed = parseJson(source.decoded());
  if ("problem" in parsed) return refuse([{ path: "", message: parsed.problem }]);
  if (!isRecord(parsed.value)) {
    return refuse([{ path: "", message: "the document must be an object with `openapi`, `info` and `paths`" }]);
  }
  let structure;
  try {
    const value = parsed.value;
    structure = withSpan("engine.checks", "internal", { "arbiter.engine.phase": "checks" }, () =>
      checkOpenApiStructure(value, format === "yaml", options),
    );
  } catch (error) {
    // Stack exhaustion on pathological input is the only way to get here; the depth limit should prevent it.
    if (error instanceof RangeError) return refuse([{ path: "", message: "the document nests too deeply to be read" }]);
    throw error;
  }
  if (structure.problems.length > 0) return refuse(structure.problems);
  if (structure.resolver) adoptResolver(parsed.value, structure.resolver);
  return {
    ok: true,
    document: parsed.value,
    openapiVersion: structure.openapiVersion,
    format,
    operationCount: structure.operationCount,
  };
}
