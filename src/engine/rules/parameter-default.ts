import { locate, type ConformanceRule } from "./rule";
import { describeParameter, pairParameters } from "../diff/parameters";
import { sameData } from "../diff/structural-identity";
import { isRecord } from "../normalize/normalize-pointer";
import type { RefResolver } from "../normalize/ref-resolver";

/**
 * The schema's `default`, or undefined when it declares none. In 3.1 a `default` beside a `$ref` counts (a
 * sibling annotation); in 3.0 the reference replaces the object, siblings included.
 */
function defaultOf(schema: unknown, resolver: RefResolver, version: string): { value: unknown } | undefined {
  let current = schema;
  for (let hops = 0; hops < 64 && isRecord(current); hops++) {
    const isReference = typeof current.$ref === "string";
    if ("default" in current && (!isReference || version !== "3.0")) return { value: current.default };
    if (!isReference) return undefined;
    const target = resolver.resolveAt(current);
    if (!target.ok) return undefined;
    current = target.value;
  }
  return undefined;
}

/**
 * A parameter default both sides declare is the same: a client that omits the parameter relies on the
 * contract's default, and another one gives it other behaviour. A default only one side declares is not
 * reported (generators write the defaults of the code, hand-written contracts often leave them out).
 */
export const parameterDefault: ConformanceRule = {
  kind: "conformance",
  id: "parameter-default",
  defaultSeverity: "error",
  purpose: "Parameter defaults declared by both sides are the same.",
  enforces:
    "https://github.com/oasdiff/oasdiff/blob/main/BREAKING-CHANGES-EXAMPLES.md (request-parameter-default-value-changed)",
  check(context) {
    for (const pair of context.comparedPairs) {
      for (const [contract, snapshot] of pairParameters(pair).both) {
        const contractDefault = defaultOf(contract.schema, context.contract.resolver, context.contract.version);
        if (contractDefault === undefined) continue;
        const snapshotDefault = defaultOf(snapshot.schema, context.snapshot.resolver, context.snapshot.version);
        if (snapshotDefault === undefined || sameData(contractDefault.value, snapshotDefault.value)) continue;
        context.report(
          locate(pair.contract, `${contract.pointer}/schema/default`),
          `${describeParameter(contract)}: the default is ${JSON.stringify(contractDefault.value)} in the contract but ${JSON.stringify(snapshotDefault.value)} in the implementation, so a client that omits it gets other behaviour`,
        );
      }
    }
  },
};
