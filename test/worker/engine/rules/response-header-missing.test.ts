import { describe, it } from "vitest";
import { expectValid, expectViolations, openapi } from "../harness";

const created = (headers: Record<string, unknown> | undefined, extra: Record<string, unknown> = {}) =>
  openapi(
    {
      "/orders": {
        post: {
          responses: {
            "201": { description: "created", ...(headers ? { headers } : {}) },
            "400": { description: "bad" },
          },
        },
      },
    },
    extra,
  );
const location = { required: true, schema: { type: "string", format: "uri" } };

describe("response-header-missing", () => {
  it("accepts a required header declared required, under another letter case or through a $ref, and optional contract headers the implementation leaves out", () => {
    expectValid(
      "response-header-missing",
      created({ Location: location }),
      created({ location: { ...location, description: "where" } }),
    );
    expectValid(
      "response-header-missing",
      created({ Location: location }),
      created(
        { Location: { $ref: "#/components/headers/Location" } },
        { components: { headers: { Location: location } } },
      ),
    );
    expectValid("response-header-missing", created({ "X-Trace": { schema: { type: "string" } } }), created(undefined));
    // A header the implementation adds on its own breaks no client.
    expectValid("response-header-missing", created(undefined), created({ Location: location }));
  });

  it("reports a required header removed or made optional", () => {
    expectViolations(
      "response-header-missing",
      created({ Location: location, "X-Request-Id": { required: true, schema: { type: "string" } } }),
      created({ "X-Request-Id": { schema: { type: "string" } } }),
      [
        {
          location: "POST /orders#/responses/201/headers/Location",
          message:
            'status 201: the contract requires response header "Location" but the implementation does not declare it',
        },
        {
          location: "POST /orders#/responses/201/headers/X-Request-Id",
          message:
            'status 201: response header "X-Request-Id" is required by the contract but optional in the implementation',
        },
      ],
    );
  });
});
