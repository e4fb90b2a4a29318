// Preloaded into the conformance suite's Node process (node --import): every HTTP request it sends to the
// server under test (global fetch, undici.request and raw node:http alike) carries the bearer token from
// ARBITER_CONFORMANCE_TOKEN, the way a connected MCP client would. The suite itself knows no OAuth.
// Uses the suite's own undici (ARBITER_CONFORMANCE_UNDICI), so the dispatcher speaks its handler API.
import http from "node:http";
import { createRequire } from "node:module";

const token = process.env.ARBITER_CONFORMANCE_TOKEN;
const origin = process.env.ARBITER_CONFORMANCE_ORIGIN;
const undiciPath = process.env.ARBITER_CONFORMANCE_UNDICI;
if (!token || !origin || !undiciPath)
  throw new Error(
    "bearer-preload: set ARBITER_CONFORMANCE_TOKEN, ARBITER_CONFORMANCE_ORIGIN and ARBITER_CONFORMANCE_UNDICI",
  );

const { Agent, setGlobalDispatcher } = createRequire(import.meta.url)(undiciPath);

function withAuthorization(headers) {
  if (Array.isArray(headers)) {
    const pairs = [];
    for (let i = 0; i < headers.length; i += 2)
      if (String(headers[i]).toLowerCase() !== "authorization") pairs.push(headers[i], headers[i + 1]);
    return [...pairs, "authorization", `Bearer ${token}`];
  }
  const copy = {};
  for (const [name, value] of Object.entries(headers ?? {}))
    if (name.toLowerCase() !== "authorization") copy[name] = value;
  return { ...copy, authorization: `Bearer ${token}` };
}

const addBearer = (dispatch) => (options, handler) => {
  const target = typeof options.origin === "string" ? options.origin : options.origin?.origin;
  return dispatch(target === origin ? { ...options, headers: withAuthorization(options.headers) } : options, handler);
};

setGlobalDispatcher(new Agent().compose(addBearer));

// The header-validation scenarios write raw requests with node:http (to control header spelling).
const target = new URL(origin);
const rawRequest = http.request;
http.request = function (options, ...rest) {
  if (
    options &&
    typeof options === "object" &&
    !(options instanceof URL) &&
    options.hostname === target.hostname &&
    String(options.port) === target.port
  ) {
    const headers = Object.fromEntries(
      Object.entries(options.headers ?? {}).filter(([name]) => name.toLowerCase() !== "authorization"),
    );
    return rawRequest.call(this, { ...options, headers: { ...headers, Authorization: `Bearer ${token}` } }, ...rest);
  }
  return rawRequest.call(this, options, ...rest);
};
