/** Parameters of a matched operation pair, keyed so that both sides line up. */
import type { IndexedOperation, IndexedParameter, OperationPair } from "../normalize/normalize-document";

/** OpenAPI: header parameters named Accept, Content-Type or Authorization SHALL be ignored. */
const IGNORED_HEADERS = new Set(["accept", "content-type", "authorization"]);

function keyOf(parameter: IndexedParameter, pathParameterPositions: Map<string, number>): string | undefined {
  if (parameter.in === "header" && IGNORED_HEADERS.has(parameter.name.toLowerCase())) return undefined;
  // Path parameters are matched by position: /orders/{id} and /orders/{orderId} name the same segment.
  if (parameter.in === "path") {
    const position = pathParameterPositions.get(parameter.name);
    return position === undefined ? `path:${parameter.name}` : `path#${position}`;
  }
  return `${parameter.in}:${parameter.in === "header" ? parameter.name.toLowerCase() : parameter.name}`;
}

function pathParameterPositions(operation: IndexedOperation): Map<string, number> {
  const positions = new Map<string, number>();
  let index = 0;
  for (const match of operation.path.matchAll(/\{([^}]+)\}/g)) positions.set(match[1] ?? "", index++);
  return positions;
}

export function parametersByKey(operation: IndexedOperation): Map<string, IndexedParameter> {
  const positions = pathParameterPositions(operation);
  const result = new Map<string, IndexedParameter>();
  for (const parameter of operation.parameters) {
    const key = keyOf(parameter, positions);
    if (key !== undefined) result.set(key, parameter);
  }
  return result;
}

export interface ParameterPairs {
  both: [IndexedParameter, IndexedParameter][];
  onlyContract: IndexedParameter[];
  onlySnapshot: IndexedParameter[];
}

const pairedParameters = new WeakMap<OperationPair, ParameterPairs>();

/** Parameters of both sides lined up; computed once per pair (several rules ask). */
export function pairParameters(pair: OperationPair): ParameterPairs {
  let paired = pairedParameters.get(pair);
  if (!paired) {
    paired = computePairs(pair);
    pairedParameters.set(pair, paired);
  }
  return paired;
}

function computePairs(pair: OperationPair): ParameterPairs {
  const contract = parametersByKey(pair.contract);
  const snapshot = parametersByKey(pair.snapshot);
  const both: [IndexedParameter, IndexedParameter][] = [];
  const onlyContract: IndexedParameter[] = [];
  for (const [key, parameter] of contract) {
    const counterpart = snapshot.get(key);
    if (counterpart) both.push([parameter, counterpart]);
    else onlyContract.push(parameter);
  }
  const onlySnapshot = [...snapshot].filter(([key]) => !contract.has(key)).map(([, parameter]) => parameter);
  return { both, onlyContract, onlySnapshot };
}

export function describeParameter(parameter: IndexedParameter): string {
  return `${parameter.in} parameter "${parameter.name}"`;
}
