/** The operator's API from tests: real requests through the Worker's front door (SELF), with the test operator key. */
import { SELF } from "../self";
import { BASE } from "../helpers";

export const OPERATOR_KEY = "test-operator-key-not-a-secret-0123456789";

export async function operator(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any }> {
  const response = await SELF.fetch(`${BASE}/operator/v1${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${OPERATOR_KEY}`,
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}
