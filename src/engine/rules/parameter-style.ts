import { locate, type ConformanceRule } from "./rule";
import { describeParameter, pairParameters } from "../diff/parameters";
import type { IndexedParameter } from "../normalize/normalize-document";
import { viewSchema } from "../normalize/normalize-schema";

/** OpenAPI's defaults: `form` for query and cookie parameters, `simple` for path and header ones. */
function styleOf(parameter: IndexedParameter): string {
  const style = parameter.definition.style;
  if (typeof style === "string") return style;
  return parameter.in === "query" || parameter.in === "cookie" ? "form" : "simple";
}

/** `explode` defaults to true for `form` and to false for every other style. */
function explodeOf(parameter: IndexedParameter, style: string): boolean {
  const explode = parameter.definition.explode;
  return typeof explode === "boolean" ? explode : style === "form";
}

/**
 * How a single (non-array, non-object) value is written: `explode` changes nothing for it, and form,
 * spaceDelimited, pipeDelimited and deepObject all write `name=value`.
 */
function primitiveShape(style: string): string {
  return style === "matrix" || style === "label" || style === "simple" ? style : "form";
}

function describeStyle(style: string, explode: boolean): string {
  return `style ${style}, explode ${explode}`;
}

/**
 * A parameter is serialised the same way on both sides (`style` and `explode`, defaults applied): otherwise a
 * client following the contract writes `ids=1,2` where the implementation reads `ids=1&ids=2`. For values that
 * can only be single, only the styles that change how one value is written count.
 */
export const parameterStyle: ConformanceRule = {
  kind: "conformance",
  id: "parameter-style",
  defaultSeverity: "error",
  purpose: "Parameters are serialised as the contract says (style and explode, defaults applied).",
  enforces: "https://spec.openapis.org/oas/v3.1.0.html#style-values",
  check(context) {
    for (const pair of context.comparedPairs) {
      for (const [contract, snapshot] of pairParameters(pair).both) {
        // A parameter described by `content` is serialised by its media type, not by a style.
        if (contract.viaContent || snapshot.viaContent) continue;
        const contractStyle = styleOf(contract);
        const snapshotStyle = styleOf(snapshot);
        const contractExplode = explodeOf(contract, contractStyle);
        const snapshotExplode = explodeOf(snapshot, snapshotStyle);
        if (contractStyle === snapshotStyle && contractExplode === snapshotExplode) continue;
        const types = viewSchema(contract.schema, context.contract).types;
        const single = types !== undefined && types.size > 0 && !types.has("array") && !types.has("object");
        if (single && primitiveShape(contractStyle) === primitiveShape(snapshotStyle)) continue;
        context.report(
          locate(pair.contract, `${contract.pointer}/${contractStyle === snapshotStyle ? "explode" : "style"}`),
          `${describeParameter(contract)}: ${describeStyle(contractStyle, contractExplode)} in the contract but ${describeStyle(snapshotStyle, snapshotExplode)} in the implementation, so clients write it differently than the implementation reads it`,
        );
      }
    }
  },
};
