/**
 * GET /api/v1/openapi.json: the OpenAPI 3.1 contract of this REST API (src/api/openapi.json), with this
 * deployment's origin as its server. Any valid token or CI key may read it (no scope): it describes the API,
 * and keeping it behind the resource server means one rule for every /api path (docs/ci.md "REST errors").
 */
import contract from "./openapi.json";
import { json } from "./contracts-http";
import type { ApiRoute } from "./router";

export const OPENAPI_PATH = "/api/v1/openapi.json";

export const openApiRoutes: ApiRoute[] = [
  {
    method: "GET",
    path: OPENAPI_PATH,
    requiredScopes: [],
    async handle({ env }) {
      return json({ ...contract, servers: [{ url: new URL(env.PUBLIC_URL).origin, description: "This deployment" }] });
    },
  },
];
