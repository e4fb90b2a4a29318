// Client names chosen by whoever registered the client are shown neutralised in the console and the REST
// list of connected clients: no bidi overrides, isolates, marks or control characters (issue 9, item 11).
import { describe, expect, it } from "vitest";
import { callJson, restToken } from "../contracts-api/api-helpers";
import { obtainTokens, registerClient } from "../helpers";
import { signedIn } from "./console-helpers";

const UNSAFE =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u061C\u200B\u200E\u200F\u202A-\u202E\u2060\u2066-\u2069\uFEFF]/;

describe("connected clients with a hostile name", () => {
  it("shows the name without bidi or control characters on the console page and in the REST list", async () => {
    const client = await registerClient({ client_name: "\u202Etxt.exe\u202C Notes\u2067\u200E\u0001 Helper" });
    await obtainTokens({ user: "mia", scope: "orders.read", client });

    const page = (await (await signedIn("ana")).get("/admin/clients")).text;
    expect(page).toContain("<strong>txt.exe Notes Helper</strong>");
    expect(page).toContain('aria-label="Revoke txt.exe Notes Helper for Mia Member"');
    expect(page).not.toMatch(UNSAFE);

    const { body } = await callJson(await restToken("ana", "clients.admin"), "GET", "/clients");
    const listed = body.grants.find((g: { clientId: string }) => g.clientId === client.client_id);
    expect(listed.clientName).toBe("txt.exe Notes Helper");
  });
});
