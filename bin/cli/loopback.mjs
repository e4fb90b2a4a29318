// The browser's side of login: the loopback listener for the redirect, and opening the browser.
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { Unverified, fail } from "./errors.mjs";
import { printable } from "./text.mjs";

function escapeHtml(text) {
  return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

function callbackPage(ok, message) {
  const title = ok ? "Signed in to Arbiter" : "Arbiter login failed";
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${title}</title></head><body style="font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem"><h1>${title}</h1><p>${escapeHtml(message)}</p></body></html>`;
}

/**
 * Listens on 127.0.0.1 (a random free port) for the browser's return to /callback. `answer(ms)` resolves with
 * the authorization code, or fails on a refusal, a state or issuer mismatch, or when the time is up.
 */
export function listenForCallback(state, issuer) {
  let settle;
  const outcome = new Promise((resolve) => (settle = resolve));
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (req.method !== "GET" || url.pathname !== "/callback") {
      res
        .writeHead(404, { "Content-Type": "text/plain; charset=utf-8", Connection: "close" })
        .end("Not found: the Arbiter CLI waits for its sign-in at /callback only.");
      return;
    }
    const query = url.searchParams;
    if (query.get("state") !== state) {
      // Not the answer to this sign-in (another local process, or a stale tab): refuse it and keep waiting, so
      // nothing but the real answer can end the login.
      res.writeHead(400, {
        "Content-Type": "text/html; charset=utf-8",
        "Cache-Control": "no-store",
        Connection: "close",
      });
      res.end(
        callbackPage(
          false,
          "This answer does not belong to the sign-in the Arbiter CLI is waiting for (state mismatch), so it was ignored; the CLI keeps waiting for its own.",
        ),
      );
      return;
    }
    let result;
    if (query.has("iss") && query.get("iss") !== issuer) {
      result = {
        error: `The answer came from another authorization server (${printable(query.get("iss"))}, expected ${issuer}), so nothing was stored. Run arbiter login again.`,
      };
    } else if (query.get("error") === "access_denied") {
      result = {
        error:
          "Access was denied in the browser (access_denied): nothing was stored. Run arbiter login again and choose Allow to sign in.",
      };
    } else if (query.has("error")) {
      const description = query.get("error_description");
      result = {
        error: `The server did not grant access (${printable(query.get("error"), 60)}${description ? `: ${printable(description)}` : ""}): nothing was stored.`,
      };
    } else if (!query.get("code")) {
      result = {
        error: "The browser returned without an authorization code: nothing was stored. Run arbiter login again.",
      };
    } else {
      result = { code: query.get("code") };
    }
    const ok = result.code !== undefined;
    res.writeHead(ok ? 200 : 400, {
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": "no-store",
      Connection: "close",
    });
    res.end(callbackPage(ok, ok ? "You can close this tab and go back to the terminal." : result.error));
    settle(result);
  });
  const close = () => {
    server.close();
    server.closeAllConnections?.();
  };
  return new Promise((resolve, reject) => {
    server.once("error", (error) =>
      reject(new Unverified(`Cannot listen on 127.0.0.1 for the browser's answer: ${error.message}`)),
    );
    server.listen(0, "127.0.0.1", () => {
      const redirectUri = `http://127.0.0.1:${server.address().port}/callback`;
      const answer = async (waitMs) => {
        let timer;
        const timeUp = new Promise((resolve) => {
          timer = setTimeout(
            () =>
              resolve({
                error: `No answer from the browser within ${waitMs / 1000} s: nothing was stored. Run arbiter login again and finish signing in (--timeout waits longer).`,
              }),
            waitMs,
          );
        });
        const result = await Promise.race([outcome, timeUp]);
        clearTimeout(timer);
        if (result.error) fail(result.error);
        return result.code;
      };
      resolve({ redirectUri, answer, close });
    });
  });
}

/** Opens `url` with the platform's opener; resolves false when none could be started. Never waits for it. */
export function openBrowser(url) {
  const [command, args, options] =
    process.platform === "darwin"
      ? ["open", [url], {}]
      : process.platform === "win32"
        ? // quoted for cmd, where & would otherwise end the command; the URL is percent-encoded, so it holds no quote
          ["cmd", ["/c", "start", '""', `"${url}"`], { windowsVerbatimArguments: true }]
        : ["xdg-open", [url], {}];
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(command, args, { stdio: "ignore", detached: true, ...options });
    } catch {
      resolve(false);
      return;
    }
    child.once("error", () => resolve(false));
    child.once("spawn", () => {
      child.unref();
      resolve(true);
    });
  });
}
